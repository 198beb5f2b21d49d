package tools

import (
	"context"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// getMemo is memo_get_memo with the memo's contentHash added (that of its
// content as Memos holds it), and another user's memo marked (others.go).
func (tb *Table) getMemo(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	obj, _, err := tb.answer(ctx, t, a, authorization)
	if err != nil {
		return nil, err
	}
	memo := rawjson.Compacted(obj)
	hash := memos.ContentHash(memo.Get("content").Str)
	if obj, err = memos.MarkOne(ctx, memo, tb.caller(t, authorization).Others); err != nil {
		return nil, err
	}
	return result(withMember(obj, "contentHash", rawjson.AppendString(nil, hash))), nil
}

// currentUser is auth_get_current_user without the user's empty password
// member (Memos v0.30.0 sends "password":""): a secret's field has no
// place in a result, even empty.
func (tb *Table) currentUser(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	obj, _, err := tb.answer(ctx, t, a, authorization)
	if err != nil {
		return nil, err
	}
	return result(withoutEmptyPassword(rawjson.Compacted(obj), 0)), nil
}

// withoutEmptyPassword is obj, compact, without the members "password"
// whose value is "", on its top level and in its "user".
func withoutEmptyPassword(obj rawjson.Value, depth int) []byte {
	b := []byte{'{'}
	obj.ForEach(func(k, v rawjson.Value) bool {
		value := []byte(v.Raw)
		switch {
		case k.Str == "password" && v.Kind == rawjson.String && v.Str == "":
			return true
		case k.Str == "user" && v.IsObject() && depth == 0:
			value = withoutEmptyPassword(v, 1)
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = rawjson.AppendString(b, k.Str)
		b = append(b, ':')
		b = append(b, value...)
		return true
	})
	return append(b, '}')
}
