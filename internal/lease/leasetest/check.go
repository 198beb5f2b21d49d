// Package leasetest checks that a lease.Locker keeps the package's
// contract: the in-memory lock in unit tests, and the Durable Object under
// wrangler in the end-to-end tests, with the same cases.
package leasetest

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/lease"
)

// Check runs the contract's cases on l, under keys that start with prefix
// (so that runs on one persistent lock do not meet).
func Check(t *testing.T, l lease.Locker, prefix string) {
	ctx := context.Background()
	lock := func(t *testing.T, key string, hold time.Duration) *lease.Lease {
		t.Helper()
		got, err := l.Lock(ctx, prefix+key, hold)
		if err != nil {
			t.Fatalf("Lock(%s): %v", key, err)
		}
		return got
	}
	t.Run("one holder at a time", func(t *testing.T) { Exclusive(t, []lease.Locker{l}, prefix+"exclusive") })
	t.Run("other keys do not wait", func(t *testing.T) {
		a := lock(t, "a", lease.MaxHold)
		b := lock(t, "b", lease.MaxHold)
		a.Release("", "")
		b.Release("", "")
	})
	t.Run("a turn that does not come in time is busy", func(t *testing.T) {
		held := lock(t, "busy", lease.MaxHold)
		Busy(t, l, prefix+"busy")
		held.Release("", "")
		lock(t, "busy", time.Second).Release("", "")
	})
	t.Run("a waiter gets the turn when it is released", func(t *testing.T) {
		held := lock(t, "handed", lease.MaxHold)
		got := make(chan error, 1)
		go func() {
			next, err := l.Lock(ctx, prefix+"handed", time.Second)
			if err == nil {
				next.Release("", "")
			}
			got <- err
		}()
		held.Release("", "")
		if err := <-got; err != nil {
			t.Errorf("the waiter: %v", err)
		}
	})
	t.Run("a waiter that gave up gets no turn", func(t *testing.T) {
		held := lock(t, "gaveup", lease.MaxHold)
		gone, cancel := context.WithCancel(ctx)
		waited := make(chan error, 1)
		go func() {
			_, err := l.Lock(gone, prefix+"gaveup", lease.MaxHold)
			waited <- err
		}()
		time.Sleep(200 * time.Millisecond) // it waits
		cancel()                           // and its caller hangs up
		if err := <-waited; !errors.Is(err, lease.ErrBusy) {
			t.Fatalf("the waiter that gave up: %v, want ErrBusy", err)
		}
		held.Release("", "")
		// The next caller gets the turn, not after the lost waiter's hold.
		soon, stop := context.WithTimeout(ctx, 5*time.Second)
		defer stop()
		next, err := l.Lock(soon, prefix+"gaveup", time.Second)
		if err != nil {
			t.Fatalf("the next caller: %v", err)
		}
		next.Release("", "")
	})
	t.Run("a lease that is never released lapses", func(t *testing.T) {
		forgotten := lock(t, "lapse", 300*time.Millisecond)
		next := lock(t, "lapse", time.Second)
		<-forgotten.Context().Done()
		// The lapsed holder's release stores nothing and frees nothing.
		forgotten.Release("stale", "from a lapsed lease")
		Busy(t, l, prefix+"lapse") // the next holder still holds it
		next.Release("", "")
		after := lock(t, "lapse", time.Second)
		if _, ok := after.Recent("stale"); ok {
			t.Error("a lapsed lease's release stored its note")
		}
		after.Release("", "")
	})
	t.Run("a lease's context ends with its hold", func(t *testing.T) {
		short := lock(t, "ends", 200*time.Millisecond)
		<-short.Context().Done()
		short.Release("", "")
		lock(t, "ends", time.Second).Release("", "")
	})
	t.Run("releasing twice hands on one turn", func(t *testing.T) {
		first := lock(t, "twice", lease.MaxHold)
		first.Release("", "")
		second := lock(t, "twice", lease.MaxHold)
		first.Release("", "")
		Busy(t, l, prefix+"twice")
		second.Release("", "")
	})
	t.Run("notes are handed to the next leases", func(t *testing.T) {
		lock(t, "notes", time.Second).Release("call-1", `{"memo":"memos/1"}`)
		lock(t, "notes", time.Second).Release("", "")
		got := lock(t, "notes", time.Second)
		if note, ok := got.Recent("call-1"); !ok || note != `{"memo":"memos/1"}` {
			t.Errorf("Recent(call-1) = %q, %v", note, ok)
		}
		if _, ok := got.Recent("call-2"); ok {
			t.Error("Recent(call-2) found a note never stored")
		}
		got.Release("call-1", "again")
		got = lock(t, "notes", time.Second)
		if note, _ := got.Recent("call-1"); note != "again" {
			t.Errorf("Recent(call-1) = %q after a second note under it, want the second", note)
		}
		got.Release(strings.Repeat("d", lease.MaxDigestBytes+1), "a digest too long")
		got = lock(t, "notes", time.Second)
		if _, ok := got.Recent(strings.Repeat("d", lease.MaxDigestBytes+1)); ok {
			t.Error("a digest over the bound was stored")
		}
		got.Release("long", strings.Repeat("n", lease.MaxNoteBytes+1))
		got = lock(t, "notes", time.Second)
		if _, ok := got.Recent("long"); ok {
			t.Error("a note over the bound was stored")
		}
		got.Release("", "")
		if _, ok := lock(t, "other", time.Second).Recent("call-1"); ok {
			t.Error("another key's lease sees the note")
		}
	})
	t.Run("a key keeps its newest notes", func(t *testing.T) {
		for i := range lease.MaxNotes + 1 {
			lock(t, "many", time.Second).Release("d"+strconv.Itoa(i), strings.Repeat("n", lease.MaxNoteBytes))
		}
		got := lock(t, "many", time.Second)
		defer got.Release("", "")
		if _, ok := got.Recent("d0"); ok {
			t.Error("the oldest note is kept past the bound")
		}
		for i := 1; i <= lease.MaxNotes; i++ {
			if note, ok := got.Recent("d" + strconv.Itoa(i)); !ok || len(note) != lease.MaxNoteBytes {
				t.Errorf("note d%d: %d bytes, %v", i, len(note), ok)
			}
		}
	})
	// A waiter whose caller went away may still be handed the turn (the
	// lock cannot always tell), so its hold is short: the case checks that
	// the caller is answered and that the key is free again afterwards.
	t.Run("a caller that gave up is answered", func(t *testing.T) {
		held := lock(t, "gaveup", lease.MaxHold)
		gone, cancel := context.WithCancel(ctx)
		got := make(chan error, 1)
		go func() {
			_, err := l.Lock(gone, prefix+"gaveup", time.Second)
			got <- err
		}()
		cancel()
		if err := <-got; !errors.Is(err, lease.ErrBusy) && !errors.Is(err, lease.ErrUnavailable) {
			t.Errorf("a cancelled wait: %v; want ErrBusy or ErrUnavailable", err)
		}
		held.Release("", "")
		lock(t, "gaveup", time.Second).Release("", "")
	})
}

// Exclusive has writers lock key at once, spread over lockers (one Locker,
// or several that reach the same locks, as two Workers do), and checks that
// each got its turn and that no two turns overlapped.
func Exclusive(t *testing.T, lockers []lease.Locker, key string) {
	t.Helper()
	const writers = 12
	var inside, most, done atomic.Int32
	var wg sync.WaitGroup
	for i := range writers {
		l := lockers[i%len(lockers)]
		wg.Go(func() {
			got, err := l.Lock(context.Background(), key, lease.MaxHold)
			if err != nil {
				t.Errorf("Lock: %v", err)
				return
			}
			n := inside.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			done.Add(1)
			inside.Add(-1)
			got.Release("", "")
		})
	}
	wg.Wait()
	if most.Load() != 1 || done.Load() != writers {
		t.Errorf("%d of %d writers held the lock, at most %d at once; want all, one at a time", done.Load(), writers, most.Load())
	}
}

// Busy checks that a Lock of key, while another lease holds it, is
// answered ErrBusy once the caller's time is over.
func Busy(t *testing.T, l lease.Locker, key string) {
	t.Helper()
	short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if got, err := l.Lock(short, key, time.Second); !errors.Is(err, lease.ErrBusy) {
		t.Errorf("Lock(%s) while another lease holds it: %v, %v; want ErrBusy", key, got, err)
	}
}
