// Package prompts holds the gateway's MCP prompts, capture, daily_review,
// on_this_day and find: their definitions, the messages prompts/get renders
// from checked arguments, and completion/complete for their arguments (the
// caller's own tags from Memos, the values of the others). A prompt is
// instructions for the model, naming the tools the caller is served; one
// whose tools are all withheld (by TOOLS, READ_ONLY or a read-only grant)
// is not listed.
package prompts

import (
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/finder"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/jsonrpc"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// Catalog serves the prompts.
type Catalog struct {
	memos *memos.Client
}

// New returns the Catalog, which reads tags for completions through memos.
func New(memos *memos.Client) *Catalog { return &Catalog{memos: memos} }

// prompt is one prompt: what prompts/list shows and how prompts/get
// renders it.
type prompt struct {
	name, title, description string
	args                     []argument
	// needs reports whether the caller is served the tools the prompt
	// cannot do without.
	needs func(tb toolbox) bool
	// render returns the prompt's text for checked arguments.
	render func(a args, tb toolbox) string
}

// argument is one argument of a prompt. Values are strings, as the
// protocol has them.
type argument struct {
	name, description string
	required          bool
	// check returns why a value is wrong, or "".
	check func(string) string
	// values, when set, are the only values the argument takes, offered as
	// completions.
	values []string
	tags   bool // completed with the caller's tags
}

// args are a prompts/get call's checked arguments.
type args map[string]string

// maxValue bounds an argument's value other than capture's content, in
// bytes.
const maxValue = 1000

// ListJSON returns the prompts/list result for a caller served the tools
// for which served reports true.
func (c *Catalog) ListJSON(served func(tool string) bool) []byte {
	b := []byte(`{"prompts":[`)
	tb := toolboxOf(served)
	n := 0
	for _, p := range catalog {
		if !p.needs(tb) {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = p.appendDefinition(b)
	}
	return append(b, "]}"...)
}

func (p *prompt) appendDefinition(b []byte) []byte {
	b = append(b, `{"name":`...)
	b = rawjson.AppendString(b, p.name)
	b = append(b, `,"title":`...)
	b = rawjson.AppendString(b, p.title)
	b = append(b, `,"description":`...)
	b = rawjson.AppendString(b, p.description)
	b = append(b, `,"arguments":[`...)
	for i, a := range p.args {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = rawjson.AppendString(b, a.name)
		b = append(b, `,"description":`...)
		b = rawjson.AppendString(b, a.description)
		b = append(b, `,"required":`...)
		b = strconv.AppendBool(b, a.required)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// find returns the named prompt when the caller is served its tools.
func find(name string, served func(tool string) bool) (*prompt, toolbox, bool) {
	tb := toolboxOf(served)
	for i := range catalog {
		if p := &catalog[i]; p.name == name && p.needs(tb) {
			return p, tb, true
		}
	}
	return nil, tb, false
}

// Get returns the prompts/get result of the named prompt with arguments
// raw (an object of strings), or an InvalidParams error for an unknown
// prompt, a missing required argument, an unknown one, or a wrong value.
func (c *Catalog) Get(name string, raw rawjson.Value, served func(tool string) bool) ([]byte, error) {
	p, tb, ok := find(name, served)
	if !ok {
		return nil, jsonrpc.InvalidParams("invalid params: unknown prompt " + rawjson.Quote(name))
	}
	a, err := p.check(raw)
	if err != nil {
		return nil, err
	}
	b := []byte(`{"description":`)
	b = rawjson.AppendString(b, p.description)
	b = append(b, `,"messages":[{"role":"user","content":{"type":"text","text":`...)
	b = rawjson.AppendString(b, p.render(a, tb))
	return append(b, "}}]}"...), nil
}

// check reads and checks the arguments of a prompts/get call.
func (p *prompt) check(raw rawjson.Value) (args, error) {
	if raw.Exists() && raw.Kind != rawjson.Null && !raw.IsObject() {
		return nil, jsonrpc.InvalidParams(`invalid params: "arguments" must be an object of strings`)
	}
	a := args{}
	var problem string
	raw.ForEach(func(k, v rawjson.Value) bool {
		def := p.argument(k.Str)
		switch {
		case raw.Kind != rawjson.Object:
		case def == nil:
			problem = "unknown argument " + rawjson.Quote(k.Str) + " of prompt " + p.name + p.argumentNames()
		case v.Kind != rawjson.String:
			problem = "argument " + rawjson.Quote(k.Str) + " must be a string"
		case def.name != "content" && len(v.Str) > maxValue:
			problem = "argument " + rawjson.Quote(k.Str) + " is longer than " + strconv.Itoa(maxValue) + " bytes"
		default:
			if s := strings.TrimSpace(v.Str); s != "" {
				a[def.name] = s
			}
		}
		return problem == ""
	})
	for _, def := range p.args {
		v, ok := a[def.name]
		switch {
		case problem != "":
		case !ok && def.required:
			problem = "missing required argument " + rawjson.Quote(def.name) + " of prompt " + p.name
		case ok && def.values != nil && !contains(def.values, v):
			problem = "argument " + rawjson.Quote(def.name) + " must be one of " + strings.Join(def.values, ", ")
		case ok && def.check != nil:
			if why := def.check(v); why != "" {
				problem = "argument " + rawjson.Quote(def.name) + " " + why
			}
		}
	}
	if problem != "" {
		return nil, jsonrpc.InvalidParams("invalid params: " + problem)
	}
	return a, nil
}

func (p *prompt) argument(name string) *argument {
	for i := range p.args {
		if p.args[i].name == name {
			return &p.args[i]
		}
	}
	return nil
}

// argumentNames lists a prompt's arguments for a message.
func (p *prompt) argumentNames() string {
	names := make([]string, len(p.args))
	for i, a := range p.args {
		names[i] = a.name
	}
	return " (it takes " + strings.Join(names, ", ") + ")"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkDays accepts a whole number of days from 1 to 366.
func checkDays(s string) string {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 366 {
		return "must be a whole number of days from 1 to 366"
	}
	return ""
}

// checkDate accepts a calendar date, YYYY-MM-DD, as memo_search takes one.
func checkDate(s string) string {
	if !finder.IsDay(s) {
		return "must be a date as YYYY-MM-DD, from 1970"
	}
	return ""
}

// checkTimezone accepts what an IANA time zone name looks like (Europe/Berlin,
// America/Argentina/Buenos_Aires, UTC, Etc/GMT+2): the gateway holds no
// zone database, so the search tool that uses it is the judge.
func checkTimezone(s string) string {
	ok := len(s) <= 64 && s[0] != '/' && s[len(s)-1] != '/'
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		ok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("/_+-", c) >= 0
	}
	if !ok {
		return "must be an IANA time zone name such as Europe/Berlin or UTC"
	}
	return ""
}
