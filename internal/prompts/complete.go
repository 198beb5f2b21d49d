package prompts

import (
	"context"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/finder"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/jsonrpc"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// MaxCompletions is the most values one completion offers, as the protocol
// allows.
const MaxCompletions = 100

// maxTags bounds the tags of the caller's statistics that are looked at.
const maxTags = 10000

// templates are the resource templates completions may refer to; their
// {id} is not completed (it would take a search).
var templates = []string{"memo://memos/{id}", "memo://attachments/{id}"}

// Complete returns the completion/complete result for the argument of ref
// (a prompt the caller is served, or one of the resource templates): the
// caller's own tags that start with what was typed for a tags argument
// (two requests to Memos: who the caller is and their statistics), the
// matching values of an argument that has a fixed set, and nothing for the
// others.
func (c *Catalog) Complete(ctx context.Context, ref, arg rawjson.Value, served func(tool string) bool, authorization string) ([]byte, error) {
	name, value := arg.Get("name"), arg.Get("value")
	if name.Kind != rawjson.String || value.Kind != rawjson.String {
		return nil, jsonrpc.InvalidParams(`invalid params: "argument" must be an object with the strings "name" and "value"`)
	}
	switch ref.Get("type").Str {
	case "ref/resource":
		if !contains(templates, ref.Get("uri").Str) {
			return nil, jsonrpc.InvalidParams("invalid params: no resource template " + rawjson.Quote(ref.Get("uri").Str))
		}
		return result(nil, 0), nil
	case "ref/prompt":
	default:
		return nil, jsonrpc.InvalidParams(`invalid params: "ref" must be a ref/prompt or a ref/resource`)
	}
	p, _, ok := find(ref.Get("name").Str, served)
	if !ok {
		return nil, jsonrpc.InvalidParams("invalid params: unknown prompt " + rawjson.Quote(ref.Get("name").Str))
	}
	def := p.argument(name.Str)
	switch {
	case def == nil:
		return nil, jsonrpc.InvalidParams("invalid params: unknown argument " + rawjson.Quote(name.Str) + " of prompt " + p.name + p.argumentNames())
	case def.values != nil:
		var matches []string
		for _, v := range def.values {
			if hasPrefixFold(v, value.Str) {
				matches = append(matches, v)
			}
		}
		return result(matches, len(matches)), nil
	case def.tags && len(value.Str) <= maxValue:
		return c.completeTags(ctx, value.Str, authorization)
	}
	return result(nil, 0), nil
}

// completeTags completes the last tag of a tags argument ("work, pro" →
// "work, project") with the caller's tags, the most used first. A caller
// without a token has no tags.
func (c *Catalog) completeTags(ctx context.Context, value, authorization string) ([]byte, error) {
	cut := strings.LastIndexAny(value, ", \t") + 1
	head, typed := value[:cut], value[cut:]
	hash := ""
	if strings.HasPrefix(typed, "#") {
		hash, typed = "#", typed[1:]
	}
	if !memos.HasToken(authorization) {
		return result(nil, 0), nil
	}
	tags, err := finder.Tags(ctx, c.memos.As(authorization), maxTags)
	if err != nil {
		return nil, err
	}
	var values []string
	total := 0
	for _, t := range tags {
		if t.Name != "" && hasPrefixFold(t.Name, typed) {
			total++
			if len(values) < MaxCompletions {
				values = append(values, head+hash+t.Name)
			}
		}
	}
	return result(values, total), nil
}

// result is a completion/complete result offering values of total.
func result(values []string, total int) []byte {
	b := []byte(`{"completion":{"values":[`)
	for i, v := range values[:min(len(values), MaxCompletions)] {
		if i > 0 {
			b = append(b, ',')
		}
		b = rawjson.AppendString(b, v)
	}
	b = append(b, `],"total":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	b = append(b, `,"hasMore":`...)
	b = strconv.AppendBool(b, total > MaxCompletions)
	return append(b, "}}"...)
}

// hasPrefixFold reports whether s starts with prefix, ignoring case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
