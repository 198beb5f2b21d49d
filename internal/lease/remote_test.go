package lease

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// fakeObject answers acquire with grant and records every operation sent.
type fakeObject struct {
	mu     sync.Mutex
	grant  *web.Response
	err    error
	sent   []string
	paths  []string
	limits []time.Duration
}

func (f *fakeObject) Do(_ context.Context, req *web.Request) (*web.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, string(req.Body))
	f.paths = append(f.paths, req.Path())
	f.limits = append(f.limits, req.Timeout)
	if strings.Contains(string(req.Body), `"op":"release"`) {
		return &web.Response{Status: 200, Body: []byte(`{"released":true}`)}, nil
	}
	return f.grant, f.err
}

const token = "0123456789abcdef0123456789abcdef"

func answer(body string) *web.Response { return &web.Response{Status: 200, Body: []byte(body)} }

// Anything but a well-formed answer is ErrUnavailable; a turn granted in an
// answer that is otherwise unreadable is handed back.
func TestRemoteReadsAnswers(t *testing.T) {
	for _, c := range []struct {
		name     string
		resp     *web.Response
		err      error
		want     error
		handBack bool
	}{
		{name: "granted", resp: answer(`{"token":"` + token + `","waited":0,"notes":[]}`)},
		{name: "granted without notes", resp: answer(`{"token":"` + token + `","waited":12}`)},
		{name: "busy", resp: answer(`{"busy":true}`), want: ErrBusy},
		{name: "unreachable", err: errors.New("network down"), want: ErrUnavailable},
		{name: "refused", resp: &web.Response{Status: 400, Body: []byte(`{"error":"x"}`)}, want: ErrUnavailable},
		{name: "too long", resp: answer(`{"token":"` + token + `","waited":0,"pad":"` + strings.Repeat("x", MaxAnswerBytes) + `"}`), want: ErrUnavailable},
		{name: "not JSON", resp: answer(`{"token":`), want: ErrUnavailable},
		{name: "no token", resp: answer(`{"waited":0}`), want: ErrUnavailable},
		{name: "a token of another shape", resp: answer(`{"token":"` + strings.ToUpper(token) + `","waited":0}`), want: ErrUnavailable},
		{name: "no time waited", resp: answer(`{"token":"` + token + `"}`), want: ErrUnavailable, handBack: true},
		{name: "a time waited past any wait", resp: answer(`{"token":"` + token + `","waited":99999999}`), want: ErrUnavailable, handBack: true},
		{name: "notes not a list", resp: answer(`{"token":"` + token + `","waited":0,"notes":{}}`), want: ErrUnavailable, handBack: true},
		{name: "a note of two fields", resp: answer(`{"token":"` + token + `","waited":0,"notes":[["d","n"]]}`), want: ErrUnavailable, handBack: true},
		{name: "a note too long", resp: answer(`{"token":"` + token + `","waited":0,"notes":[["d","` + strings.Repeat("n", MaxNoteBytes+1) + `",1]]}`), want: ErrUnavailable, handBack: true},
		{name: "a negative age", resp: answer(`{"token":"` + token + `","waited":0,"notes":[["d","n",-1]]}`), want: ErrUnavailable, handBack: true},
		{name: "too many notes", resp: answer(`{"token":"` + token + `","waited":0,"notes":[` + strings.Repeat(`["d","n",1],`, MaxNotes) + `["d","n",1]]}`), want: ErrUnavailable, handBack: true},
		{name: "nested too deep", resp: answer(`{"token":"` + token + `","waited":0,"notes":[[["d"],"n",1]]}`), want: ErrUnavailable},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := &fakeObject{grant: c.resp, err: c.err}
			l, err := Remote{Doer: obj}.Lock(context.Background(), "memos/abc", time.Second)
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("Lock: %v, want %v", err, c.want)
			}
			if err == nil {
				l.Release("", "")
			}
			released := len(obj.sent) == 2
			if released != (c.want == nil || c.handBack) {
				t.Errorf("operations sent: %q", obj.sent)
			}
		})
	}
}

// A grant's notes are read (those of the window's edge left out), the
// lease ends no later than the object's turn, and Release names the token,
// stores the note and is sent once.
func TestRemoteLease(t *testing.T) {
	obj := &fakeObject{grant: answer(`{"token":"` + token + `","waited":2000,"notes":[["d1","a note",1000],["d2","too old",600000],["d\"3","\u00e9",0]]}`)}
	before := time.Now()
	l, err := Remote{Doer: obj}.Lock(context.Background(), "memos/a b", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if note, ok := l.Recent("d1"); !ok || note != "a note" {
		t.Errorf("Recent(d1) = %q, %v", note, ok)
	}
	if _, ok := l.Recent("d2"); ok {
		t.Error("a note as old as the window is handed on")
	}
	if note, _ := l.Recent(`d"3`); note != "é" {
		t.Errorf(`Recent(d"3) = %q`, note)
	}
	if d, ok := l.Context().Deadline(); !ok || d.After(time.Now().Add(12*time.Second)) || d.Before(before.Add(12*time.Second)) {
		t.Errorf("the lease ends at %v, want the time sent + 2 s waited + 10 s held (%v)", d, before.Add(12*time.Second))
	}
	l.Release("call", `{"memo":"memos/1"}`)
	l.Release("call", "twice")
	if len(obj.sent) != 2 {
		t.Fatalf("operations sent: %q", obj.sent)
	}
	if obj.paths[0] != "/memos%2Fa%20b" || obj.paths[1] != obj.paths[0] {
		t.Errorf("paths %q, want the key escaped as one segment", obj.paths)
	}
	acquire, release := rawjson.Parse(obj.sent[0]), rawjson.Parse(obj.sent[1])
	if acquire.Get("op").Str != "acquire" || acquire.Get("hold").Int() != 10000 || acquire.Get("wait").Int() != MaxWait.Milliseconds() {
		t.Errorf("acquire: %s", obj.sent[0])
	}
	if release.Get("token").Str != token || release.Get("digest").Str != "call" || release.Get("note").Str != `{"memo":"memos/1"}` {
		t.Errorf("release: %s", obj.sent[1])
	}
	if obj.limits[0] < MaxWait || obj.limits[1] > 10*time.Second {
		t.Errorf("timeouts %v: the acquire's must outlast the wait, the release's be short", obj.limits)
	}
	if l.Context().Err() == nil {
		t.Error("the lease's context did not end with its release")
	}
}

// The wait asked of the object is the caller's own when it is shorter.
func TestRemoteWaitsNoLongerThanTheCaller(t *testing.T) {
	obj := &fakeObject{grant: answer(`{"busy":true}`)}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := (Remote{Doer: obj}).Lock(ctx, "k", time.Second); !errors.Is(err, ErrBusy) {
		t.Fatalf("Lock: %v", err)
	}
	if wait := rawjson.Parse(obj.sent[0]).Get("wait").Int(); wait > 2000 || wait <= 0 {
		t.Errorf("wait %d ms, want within the caller's 2 s", wait)
	}
}

// A caller that gives up while it waits takes its token out of the queue
// (leave), so that the object does not hand it a turn nobody uses.
func TestRemoteLeavesWhenTheCallerGivesUp(t *testing.T) {
	gone, stop := context.WithCancel(context.Background())
	waiting := &blockingObject{sent: make(chan string, 4)}
	go func() {
		<-waiting.started()
		stop()
	}()
	if _, err := (Remote{Doer: waiting}).Lock(gone, "k", time.Second); !errors.Is(err, ErrBusy) {
		t.Fatalf("Lock of a caller that gave up: %v", err)
	}
	acquire, leave := rawjson.Parse(<-waiting.sent), rawjson.Parse(<-waiting.sent)
	if leave.Get("op").Str != "leave" || leave.Get("token").Str == "" || leave.Get("token").Str != acquire.Get("token").Str {
		t.Errorf("sent %s then %s, want a leave with the acquire's token", acquire.Raw, leave.Raw)
	}
}

// blockingObject holds an acquire open until its request ends, and answers
// anything else at once.
type blockingObject struct {
	sent  chan string
	begin chan struct{}
	once  sync.Once
}

func (b *blockingObject) started() chan struct{} {
	b.once.Do(func() { b.begin = make(chan struct{}) })
	return b.begin
}

func (b *blockingObject) Do(ctx context.Context, req *web.Request) (*web.Response, error) {
	b.sent <- string(req.Body)
	if strings.Contains(string(req.Body), `"op":"acquire"`) {
		close(b.started())
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return answer(`{"left":true}`), nil
}
