package finder

import (
	"context"
	"sync"
)

// maxEditing bounds how many memos an isolate edits at once: the locks'
// map holds one entry per memo with an edit running or waiting, dropped
// when the last one ends.
const maxEditing = 256

// locks serializes the edits of each memo within an isolate, so that
// concurrent memo_edit calls on one memo each apply their change to the
// text the one before wrote.
type locks struct {
	mu    sync.Mutex
	memos map[string]*memoLock
}

// memoLock is one memo's lock (a channel of one slot, so that a waiting
// call can give up when its context ends) and how many calls hold it or
// wait for it.
type memoLock struct {
	slot  chan struct{}
	users int
}

// edits are the locks of this isolate's edits.
var edits locks

// lock waits until no other edit of the memo id runs, and returns the
// function that ends this one's turn.
func (l *locks) lock(ctx context.Context, id string) (unlock func(), err error) {
	l.mu.Lock()
	e := l.memos[id]
	if e == nil {
		if len(l.memos) >= maxEditing {
			l.mu.Unlock()
			return nil, fail("too many memos are being edited at once: retry in a moment")
		}
		if l.memos == nil {
			l.memos = map[string]*memoLock{}
		}
		e = &memoLock{slot: make(chan struct{}, 1)}
		l.memos[id] = e
	}
	e.users++
	l.mu.Unlock()
	leave := func() {
		l.mu.Lock()
		if e.users--; e.users == 0 {
			delete(l.memos, id)
		}
		l.mu.Unlock()
	}
	select {
	case e.slot <- struct{}{}:
		return func() { <-e.slot; leave() }, nil
	case <-ctx.Done():
		leave()
		return nil, fail("the call ended while another edit of the memo ran")
	}
}
