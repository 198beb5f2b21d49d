package oauth

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/grants"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// A grant is one person's consent to one client. Its generation, kept by
// the store under grantKey, counts the steps taken with it: 1 once the
// person consented (so a consent page makes at most one grant), 2 once the
// code was exchanged, and one more at each refresh. A code or refresh token
// carries the generation it may advance from; presenting one that is not
// current is a replay, which ends the grant (OAuth 2.1 section 4.3.1).
const (
	genConsented = 1
	genExchanged = 2
)

func grantKey(id string) string { return "grant/" + id }

// grantEnd is when a grant consented to for days ends.
func (s *Server) grantEnd(days int) time.Time {
	return s.opts.Now().Add(time.Duration(days) * 24 * time.Hour)
}

// until is when the grant of r ends.
func (r record) until() time.Time {
	sec, _ := strconv.ParseInt(r.Until, 10, 64)
	return time.Unix(sec, 0)
}

func (r record) generation() int64 {
	n, err := strconv.ParseInt(r.Gen, 10, 64)
	if err != nil {
		return grants.Ended // names no generation: it can advance nothing
	}
	return n
}

// refreshRetryWindow is how long after a refresh its refresh token still
// works as a retry: a client that lost the answer (a dropped connection, a
// phone changing networks) or refreshed twice at once (two tabs) sends it
// again and gets tokens at the grant's current generation, as the answer it
// lost held. Only the one generation just left qualifies, so once the new
// refresh token has been used the old one is a replay again.
const refreshRetryWindow = time.Minute

// advance moves r's grant on from the generation r carries, and returns the
// generation to issue tokens at. A token one generation behind, presented
// within retry of the step that left it behind, is a retry of that step:
// it gets the current generation and moves nothing. A refusal is the token
// endpoint's answer: the grant has ended, or r was used already, in which
// case the grant ends now, and with it its Memos token.
func (s *Server) advance(ctx context.Context, r record, what string, retry time.Duration) (int64, *web.Response) {
	step, err := s.opts.Store.Advance(ctx, grantKey(r.Grant), r.generation(), r.until())
	switch {
	case err != nil:
		logline.Print("grant store: ", err.Error())
		return 0, oauthError(503, "temporarily_unavailable", "the authorization server cannot check grants right now: try again shortly")
	case step.Moved:
		return step.Value, nil
	case step.Value == grants.Ended:
		return 0, oauthError(400, "invalid_grant", "this grant has ended (revoked, expired or replayed): connect again")
	case step.Value == r.generation()+1 && step.Age < retry:
		return step.Value, nil
	}
	s.end(ctx, r)
	return 0, oauthError(400, "invalid_grant", "the "+what+" was used already, so the grant it belongs to has ended: connect again")
}

// end ends r's grant everywhere and deletes its Memos token. The grant is
// ended first: once that is done, no token of it works whatever happens to
// the deletion.
func (s *Server) end(ctx context.Context, r record) error {
	if err := s.opts.Store.End(ctx, grantKey(r.Grant), r.until()); err != nil {
		logline.Print("grant store: ", err.Error())
		return err
	}
	s.live.forget(r.Grant)
	if r.TokenName == "" {
		return nil
	}
	if err := s.opts.Memos.DeleteToken(ctx, r.Token, r.TokenName); err != nil && !memos.IsRefused(err) {
		logline.Print("ending a grant: deleting its Memos token: ", err.Error())
		return err
	}
	return nil
}

// grantStatusTTL is how long an isolate trusts that a grant it checked is
// still alive: a grant revoked or replayed elsewhere stops working here
// within this time (at once on the isolate that ended it).
const grantStatusTTL = 15 * time.Second

// maxLiveGrants bounds the isolate's memory of live grants.
const maxLiveGrants = 4096

// liveGrants remembers, per isolate, grants seen alive lately, so that an
// access token's use needs the store once per grantStatusTTL at most.
type liveGrants struct {
	mu   sync.Mutex
	seen map[string]time.Time // grant id → when it was seen alive
}

func (l *liveGrants) fresh(id string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	at, ok := l.seen[id]
	return ok && now.Sub(at) < grantStatusTTL
}

func (l *liveGrants) saw(id string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.seen) >= maxLiveGrants {
		clear(l.seen)
	}
	l.seen[id] = now
}

func (l *liveGrants) forget(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.seen, id)
}

// errGrantEnded is an access token whose grant has ended.
var errGrantEnded = errors.New("grant ended")

// checkAlive reports whether the grant of an access token is alive: from
// this isolate's memory when it is fresh, otherwise from the store.
func (s *Server) checkAlive(ctx context.Context, id string) error {
	now := s.opts.Now()
	if s.live.fresh(id, now) {
		return nil
	}
	gen, err := s.opts.Store.Get(ctx, grantKey(id))
	if err != nil {
		return err
	}
	if gen < genExchanged {
		return errGrantEnded
	}
	s.live.saw(id, now)
	return nil
}
