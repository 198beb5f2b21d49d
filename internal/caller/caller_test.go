package caller

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/crypto/blake2b"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
)

// refusal is Memos refusing a token.
var refusal = &memos.Error{Status: 401, Msg: "refused", Refused: true}

var errDown = errors.New("the Memos instance cannot be reached")

// fakeMemos answers checks from a table of tokens and counts them; down
// makes every check fail without an answer.
type fakeMemos struct {
	users map[string]string
	down  atomic.Bool
	asked atomic.Int64
}

func (m *fakeMemos) check(_ context.Context, token string) (string, error) {
	m.asked.Add(1)
	if m.down.Load() {
		return "", errDown
	}
	if u, ok := m.users[token]; ok {
		return u, nil
	}
	return "", refusal
}

// clock is a settable time source.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time                   { return c.now }
func (c *clock) advance(d time.Duration)          { c.now = c.now.Add(d) }
func newClock() *clock                            { return &clock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)} }
func (m *fakeMemos) calls() int                   { return int(m.asked.Load()) }
func newMemos(users map[string]string) *fakeMemos { return &fakeMemos{users: users} }

func TestVerify(t *testing.T) {
	type step struct {
		advance time.Duration
		down    bool
		token   string
		user    string // "" with want an error
		err     error  // nil, ErrRefused, or errDown
		asked   int    // checks so far
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{name: "accepted token is asked about once per TTL", steps: []step{
			{token: "good", user: "users/alice", asked: 1},
			{advance: DefaultAccepted - time.Millisecond, token: "good", user: "users/alice", asked: 1},
			{advance: time.Millisecond, token: "good", user: "users/alice", asked: 2},
		}},
		{name: "refused token is remembered for a few seconds", steps: []step{
			{token: "made-up", err: ErrRefused, asked: 1},
			{advance: 4 * time.Second, token: "made-up", err: ErrRefused, asked: 1},
			{advance: time.Second, token: "made-up", err: ErrRefused, asked: 2},
		}},
		{name: "no answer is neither cached nor a refusal", steps: []step{
			{down: true, token: "good", err: errDown, asked: 1},
			{down: true, token: "good", err: errDown, asked: 2},
			{token: "good", user: "users/alice", asked: 3},
		}},
		{name: "a recent acceptance stands in while Memos cannot answer", steps: []step{
			{token: "good", user: "users/alice", asked: 1},
			{advance: 2 * time.Minute, down: true, token: "good", user: "users/alice", asked: 2},
			{advance: 4 * time.Minute, down: true, token: "good", err: errDown, asked: 3},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, c := newMemos(map[string]string{"good": "users/alice"}), newClock()
			// No refreshing ahead here (TestRefreshAhead): each check is
			// the request's own.
			v := New(m.check, Options{Now: c.Now, Refresh: DefaultAccepted})
			for i, s := range tc.steps {
				c.advance(s.advance)
				m.down.Store(s.down)
				user, err := v.Verify(t.Context(), s.token)
				if user != s.user || !errors.Is(err, s.err) || (s.err == nil) != (err == nil) || m.calls() != s.asked {
					t.Errorf("step %d: %q, %v after %d checks; want %q, %v after %d", i, user, err, m.calls(), s.user, s.err, s.asked)
				}
			}
		})
	}
}

// A token that Memos refuses once it had accepted it, as a tool call finds,
// is refused at once after Forget, without asking Memos, until a refusal's
// time is over; then Memos is asked again.
func TestForget(t *testing.T) {
	m, c := newMemos(map[string]string{"good": "users/alice"}), newClock()
	v := New(m.check, Options{Now: c.Now})
	v.Verify(t.Context(), "good")
	delete(m.users, "good") // deleted in Memos
	if _, err := v.Verify(t.Context(), "good"); err != nil || m.calls() != 1 {
		t.Fatalf("within the TTL: %v after %d checks", err, m.calls())
	}
	v.Forget("good")
	if _, err := v.Verify(t.Context(), "good"); !errors.Is(err, ErrRefused) || m.calls() != 1 {
		t.Errorf("after Forget: %v after %d checks, want refused after 1", err, m.calls())
	}
	c.advance(DefaultRefused)
	if _, err := v.Verify(t.Context(), "good"); !errors.Is(err, ErrRefused) || m.calls() != 2 {
		t.Errorf("after the refusal's time: %v after %d checks, want refused after 2", err, m.calls())
	}
}

// A flood of made-up tokens costs one check each and a bounded table, and
// pushes out no accepted token.
func TestBounded(t *testing.T) {
	m, c := newMemos(map[string]string{"good": "users/alice"}), newClock()
	v := New(m.check, Options{Now: c.Now, MaxRefused: 100, MaxAccepted: 10})
	v.Verify(t.Context(), "good")
	const flood = 5000
	for i := range flood {
		if _, err := v.Verify(t.Context(), "made-up-"+strconv.Itoa(i)); !errors.Is(err, ErrRefused) {
			t.Fatalf("token %d: %v", i, err)
		}
	}
	if len(v.refused) > 100 || len(v.accepted) != 1 || m.calls() != flood+1 {
		t.Errorf("%d refused and %d accepted entries after %d checks; want at most 100, 1, %d", len(v.refused), len(v.accepted), m.calls(), flood+1)
	}
	if _, err := v.Verify(t.Context(), "good"); err != nil || m.calls() != flood+1 {
		t.Errorf("the accepted token after the flood: %v after %d checks", err, m.calls())
	}
	// Entries past their time go first, so that real tokens keep theirs.
	for i := range 20 {
		m.users["real-"+strconv.Itoa(i)] = "users/u" + strconv.Itoa(i)
		c.advance(time.Second)
		v.Verify(t.Context(), "real-"+strconv.Itoa(i))
	}
	if len(v.accepted) > 10 {
		t.Errorf("%d accepted entries, want at most 10", len(v.accepted))
	}
}

// The tables are keyed by the token's BLAKE2b-256 and hold no token. The token
// is made when the test runs: no token value lives in the repository.
func TestKeyedByHash(t *testing.T) {
	token := "memos_pat_" + rand.Text()
	m := newMemos(map[string]string{token: "users/alice"})
	v := New(m.check, Options{})
	v.Verify(t.Context(), token)
	v.Verify(t.Context(), token+"x")
	want := blake2b.Sum256([]byte(token))
	if _, ok := v.accepted[key(want)]; !ok || len(v.accepted) != 1 || len(v.refused) != 1 {
		t.Fatalf("accepted %d, refused %d entries; the token's hash is not a key", len(v.accepted), len(v.refused))
	}
	for _, table := range []map[key]entry{v.accepted, v.refused} {
		for k, e := range table {
			if bytes.Contains(k[:], []byte(token[:8])) || e.user == token {
				t.Errorf("an entry holds the token: %x %+v", k, e)
			}
		}
	}
}

// Requests that bring the same new token at the same time each ask Memos,
// none waiting for another's question: one whose question fails (its client
// gone, Memos unreachable for it) fails alone. In the bubble, Wait returns
// once every request blocks in its own check.
func TestConcurrentAskOnTheirOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var asked atomic.Int64
		v := New(func(ctx context.Context, _ string) (string, error) {
			if asked.Add(1) == 1 {
				return "", errDown // the first to ask gets no answer
			}
			<-release
			return "users/alice", nil
		}, Options{})
		var wg sync.WaitGroup
		var failed atomic.Int64
		for range 20 {
			wg.Go(func() {
				if user, err := v.Verify(context.Background(), "good"); err != nil || user != "users/alice" {
					failed.Add(1)
				}
			})
		}
		synctest.Wait()
		if asked.Load() != 20 {
			t.Errorf("%d checks under way, want 20", asked.Load())
		}
		close(release)
		wg.Wait()
		if failed.Load() != 1 {
			t.Errorf("%d failures; want the one whose own check failed", failed.Load())
		}
	})
}

// An acceptance older than Refresh is answered at once, and the first
// request to find it so asks Memos again beside it, once, even after that
// request's context ends; the new answer then stands: a token in steady use
// never waits for the check. A refusal found so is taken at once.
func TestRefreshAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, c := newMemos(map[string]string{"good": "users/alice"}), newClock()
		v := New(m.check, Options{Now: c.Now})
		v.Verify(t.Context(), "good")
		c.advance(DefaultRefresh)
		for range 3 {
			ctx, cancel := context.WithCancel(t.Context())
			user, err := v.Verify(ctx, "good")
			cancel() // the request is answered
			if user != "users/alice" || err != nil {
				t.Fatalf("an acceptance old enough to refresh: %q, %v", user, err)
			}
		}
		synctest.Wait()
		if m.calls() != 2 {
			t.Fatalf("%d checks, want the first and one refresh", m.calls())
		}
		// Refreshed: it stands for another Accepted from then.
		c.advance(DefaultAccepted - time.Millisecond)
		_, err := v.Verify(t.Context(), "good")
		synctest.Wait()
		if err != nil || m.calls() != 3 {
			t.Errorf("after the refresh: %v after %d checks; want accepted, and refreshed again (3)", err, m.calls())
		}
		delete(m.users, "good") // deleted in Memos; the next refresh finds it
		c.advance(DefaultRefresh)
		v.Verify(t.Context(), "good")
		synctest.Wait()
		if _, err := v.Verify(t.Context(), "good"); !errors.Is(err, ErrRefused) || m.calls() != 4 {
			t.Errorf("after a refresh that found the token refused: %v after %d checks; want refused after 4", err, m.calls())
		}
	})
}
