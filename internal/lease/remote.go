package lease

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/random"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// Remote is the Locker of the Durable Object namespace that Doer reaches:
// each key is the object named by the request's path (the entry module
// routes it), and the body is one operation in JSON. lock.mjs answers it.
// A waiter's request is held open by the object until its turn comes or
// its wait is over: nothing polls.
type Remote struct {
	Doer web.Doer
}

// MaxAnswerBytes is the most an answer of the lock may hold (a grant with
// MaxNotes notes at their longest, escaped); the Doer should refuse longer
// ones.
const MaxAnswerBytes = 64 * 1024

// Bounds of the requests to the object, beyond the wait itself: the object
// answers a waiter at its deadline, so the request's own timeout only
// catches an object that cannot answer.
const (
	answerSlack    = 3 * time.Second
	releaseTimeout = 3 * time.Second
)

// Lock implements Locker.
func (r Remote) Lock(ctx context.Context, key string, hold time.Duration) (*Lease, error) {
	if err := checkKey(key, hold); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, errors.Join(ErrBusy, context.Cause(ctx))
	}
	hold = min(hold, MaxHold)
	wait := MaxWait
	if deadline, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(deadline))
	}
	// The lease's end is counted from before the request went out: the
	// object counts it from the grant, which came later.
	start := time.Now()
	// The object answers busy at the caller's deadline: the request must
	// outlive it to hear that (or a grant that came at the last moment, to
	// hand back). A caller that goes away still ends it.
	req, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	defer context.AfterFunc(ctx, func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			stop()
		}
	})()
	// The turn's token is this call's own, so that a caller that gives up
	// while it waits can take itself out of the queue: the object does not
	// learn that a request it holds open was abandoned, and would hand that
	// caller a turn nobody uses until it lapses.
	token := newToken()
	resp, err := r.do(req, key, `{"op":"acquire","hold":`+millis(hold)+`,"wait":`+millis(wait)+`,"token":"`+token+`"}`, wait+answerSlack)
	if err != nil && ctx.Err() != nil {
		r.do(context.WithoutCancel(ctx), key, `{"op":"leave","token":"`+token+`"}`, releaseTimeout)
		return nil, errors.Join(ErrBusy, context.Cause(ctx))
	}
	if err != nil {
		return nil, err
	}
	g, err := readGrant(resp)
	if err != nil {
		if g.token != "" { // granted, but unreadable: hand it back
			r.release(context.WithoutCancel(ctx), key, g.token, "", "")
		}
		return nil, err
	}
	if g.busy {
		return nil, ErrBusy
	}
	l := newLease(ctx, start.Add(g.waited+hold), g.notes, func(digest, note string) {
		r.release(context.WithoutCancel(ctx), key, g.token, digest, note)
	})
	if err := ctx.Err(); err != nil { // the caller gave up as the turn came
		l.Release("", "")
		return nil, errors.Join(ErrBusy, context.Cause(ctx))
	}
	return l, nil
}

// newToken returns 32 random hex digits: a turn's token.
func newToken() string {
	const digits = "0123456789abcdef"
	var b [16]byte
	random.Read(b[:])
	t := make([]byte, 0, 32)
	for _, c := range b {
		t = append(t, digits[c>>4], digits[c&15])
	}
	return string(t)
}

// release hands key's turn on, and stores note under digest when it is not
// "". Its answer says whether the token still held the key; either way
// there is nothing more to do, so it is not read.
func (r Remote) release(ctx context.Context, key, token, digest, note string) {
	op := []byte(`{"op":"release","token":`)
	op = rawjson.AppendString(op, token)
	if digest != "" {
		op = append(op, `,"digest":`...)
		op = rawjson.AppendString(op, digest)
		op = append(op, `,"note":`...)
		op = rawjson.AppendString(op, note)
	}
	op = append(op, '}')
	r.do(ctx, key, string(op), releaseTimeout)
}

// do sends one operation on key and returns the object's answer body;
// anything but a 200 within MaxAnswerBytes is ErrUnavailable.
func (r Remote) do(ctx context.Context, key, op string, timeout time.Duration) ([]byte, error) {
	resp, err := r.Doer.Do(ctx, &web.Request{
		Method: "POST", URL: "https://locks.invalid/" + uri.PathEscape(key),
		Header: web.Header{"content-type": "application/json"}, Body: []byte(op), Timeout: timeout,
	})
	if err != nil {
		return nil, errors.Join(ErrUnavailable, err)
	}
	if resp.Status != 200 || len(resp.Body) > MaxAnswerBytes {
		return nil, errors.Join(ErrUnavailable, errors.New("it answered "+strconv.Itoa(resp.Status)))
	}
	return resp.Body, nil
}

// grant is an answer to acquire: busy, or a token with the time the turn
// took to come and the key's recent notes.
type grant struct {
	busy   bool
	token  string
	waited time.Duration
	notes  map[string]string
}

// readGrant reads an answer to acquire:
//
//	{"busy":true}
//	{"token":"…","waited":ms,"notes":[["digest","note",ageMs],…]}
//
// Anything else is ErrUnavailable; the token is returned when it alone
// could be read, so that the turn can be handed back.
func readGrant(body []byte) (grant, error) {
	if !rawjson.ValidBytesWithin(body, 3) {
		return grant{}, errors.Join(ErrUnavailable, errors.New("its answer is not JSON"))
	}
	doc := rawjson.ParseBytes(body)
	if doc.Get("busy").Bool() {
		return grant{busy: true}, nil
	}
	tok, waited := doc.Get("token"), doc.Get("waited")
	if tok.Kind != rawjson.String || !validToken(tok.Str) {
		return grant{}, errors.Join(ErrUnavailable, errors.New("its answer has no token"))
	}
	g := grant{token: tok.Str}
	bad := func(what string) (grant, error) {
		return grant{token: g.token}, errors.Join(ErrUnavailable, errors.New("its answer has "+what))
	}
	if waited.Kind != rawjson.Number || waited.Int() < 0 || waited.Int() > int64((MaxWait+answerSlack)/time.Millisecond) {
		return bad("no time waited")
	}
	g.waited = time.Duration(waited.Int()) * time.Millisecond
	notes := doc.Get("notes")
	if notes.Exists() && !notes.IsArray() {
		return bad("malformed notes")
	}
	items := notes.Array()
	if len(items) > MaxNotes {
		return bad("too many notes")
	}
	g.notes = make(map[string]string, len(items))
	for _, n := range items {
		f := n.Array()
		if !n.IsArray() || len(f) != 3 || f[0].Kind != rawjson.String || f[1].Kind != rawjson.String || f[2].Kind != rawjson.Number || f[2].Int() < 0 ||
			!storable(f[0].Str, f[1].Str) {
			return bad("a malformed note")
		}
		// A note of the window's edge is left out: the object counts its
		// age from its own clock.
		if time.Duration(f[2].Int())*time.Millisecond < RecentWindow {
			g.notes[f[0].Str] = f[1].Str
		}
	}
	return g, nil
}

// validToken reports whether s is a token the object makes: 32 hex digits.
func validToken(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func millis(d time.Duration) string { return strconv.FormatInt(max(int64(d/time.Millisecond), 0), 10) }
