package memos

import (
	"context"
	"errors"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/visible"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// Other users' memos. Memos shows a caller other users' public and
// protected memos beside their own, in the same shape, so that text
// someone else wrote would read as the caller's own notes. Every result
// that carries a memo marks another user's with OtherMember (its creator)
// and removes the hidden characters from its text (package visible);
// with Options.Lockdown (LOCKDOWN) results leave them out.

// OtherMember is the member a memo by another user than the caller gains:
// its creator's resource name.
const OtherMember = "byOtherUser"

// ErrLockdown is a read of another user's memo under LOCKDOWN.
var ErrLockdown = errors.New("this memo is another user's, and this gateway runs with LOCKDOWN, which keeps other users' memos out of every result")

// Others is how other users' memos reach one caller.
type Others struct {
	// Me is the caller's user (users/…); "" for a caller without a
	// token, to whom every memo is another's.
	Me string
	// Lockdown leaves other users' memos out.
	Lockdown bool
}

// KnowCallers lets the client learn whose a token is from whose (the
// caller check's memory of the answer it has just had) instead of asking
// Memos again; whose's errors are the callers' (a refusal among them).
func (c *Client) KnowCallers(whose func(ctx context.Context, token string) (string, error)) {
	c.whose = whose
}

// Others returns how other users' memos reach this caller: nothing is
// asked for a caller without a token, and nothing when the client knows
// callers (KnowCallers); otherwise one request, GET /api/v1/auth/me.
func (m Caller) Others(ctx context.Context) (Others, error) {
	o := Others{Lockdown: m.c.opts.Lockdown}
	if !HasToken(m.authorization) {
		return o, nil
	}
	if token, ok := web.BearerToken(m.authorization); ok && m.c.whose != nil {
		// Its error stands: a token the check has found refused must not
		// go to Memos again.
		var err error
		o.Me, err = m.c.whose(ctx, token)
		return o, err
	}
	me, err := m.GetJSON(ctx, RouteCurrentUser, RouteCurrentUser)
	if err != nil {
		return o, err
	}
	if o.Me = me.Get("user").Get("name").Str; o.Me == "" {
		return o, &Error{Msg: errBadCredentials, Refused: true}
	}
	return o, nil
}

// Theirs reports whether memo is another user's: it names a creator, and
// not the caller.
func (o Others) Theirs(memo rawjson.Value) bool {
	c := memo.Get("creator").Str
	return c != "" && c != o.Me
}

// HasCreator reports whether memo names its creator, without which no
// caller need be known to show it.
func HasCreator(memo rawjson.Value) bool { return memo.Get("creator").Str != "" }

// Mark returns memo, an object, as compact JSON: another user's with
// OtherMember at the end and its content and snippet without hidden
// characters, the caller's own as it is.
func (o Others) Mark(memo rawjson.Value) []byte {
	if !o.Theirs(memo) {
		return []byte(memo.Raw)
	}
	b := appendMembers(make([]byte, 0, len(memo.Raw)+len(OtherMember)+32), memo, func(b []byte, k, v rawjson.Value) []byte {
		if (k.Str == "content" || k.Str == "snippet") && v.Kind == rawjson.String {
			return rawjson.AppendString(b, visible.Text(v.Str))
		}
		return append(b, v.Raw...)
	})
	if len(b) > 1 {
		b = append(b, ',')
	}
	b = rawjson.AppendString(b, OtherMember)
	b = append(b, ':')
	b = rawjson.AppendString(b, memo.Get("creator").Str)
	return append(b, '}')
}

// MarkOne returns memo as the caller may see it, compact JSON: another
// user's marked (Mark), or under Lockdown ErrLockdown. others, who the
// caller is, is asked only for a memo that names its creator.
func MarkOne(ctx context.Context, memo rawjson.Value, others func(context.Context) (Others, error)) ([]byte, error) {
	if !HasCreator(memo) {
		return []byte(memo.Raw), nil
	}
	o, err := others(ctx)
	switch {
	case err != nil:
		return nil, err
	case !o.Theirs(memo):
		return []byte(memo.Raw), nil
	case o.Lockdown:
		return nil, ErrLockdown
	}
	return o.Mark(memo), nil
}

// Touches reports whether MarkList(list, key) would change list: one of
// the memos of its array member key is another user's. It reads the
// array once.
func (o Others) Touches(list rawjson.Value, key string) bool {
	theirs := false
	list.ElementsOf(key, func(memo rawjson.Value) bool {
		theirs = o.Theirs(memo)
		return !theirs
	})
	return theirs
}

// MarkList returns list, an object, as compact JSON with the memos of its
// array member key marked, and under Lockdown other users' left out.
func (o Others) MarkList(list rawjson.Value, key string) []byte {
	b := appendMembers(make([]byte, 0, len(list.Raw)+64), list, func(b []byte, k, v rawjson.Value) []byte {
		if k.Str != key || !v.IsArray() {
			return append(b, v.Raw...)
		}
		b = append(b, '[')
		n := 0
		v.ForEach(func(_, memo rawjson.Value) bool {
			if o.Lockdown && o.Theirs(memo) {
				return true
			}
			if n++; n > 1 {
				b = append(b, ',')
			}
			b = append(b, o.Mark(memo)...)
			return true
		})
		return append(b, ']')
	})
	return append(b, '}')
}

// appendMembers appends the object obj without its closing brace, each
// member's value as value appends it.
func appendMembers(b []byte, obj rawjson.Value, value func(b []byte, k, v rawjson.Value) []byte) []byte {
	b = append(b, '{')
	obj.ForEach(func(k, v rawjson.Value) bool {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, k.Raw...)
		b = append(b, ':')
		b = value(b, k, v)
		return true
	})
	return b
}
