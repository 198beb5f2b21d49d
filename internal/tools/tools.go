// Package tools runs tool calls. It owns the table of the tools the gateway
// serves, generated and hand-written alike: each row holds a tool's
// definition from the registry and the function that runs it. A call's
// arguments are checked against the tool's input schema, then a generated
// tool becomes one request to Memos built from its route, and a
// hand-written one runs in package finder.
package tools

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/accesslog"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/finder"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/lease"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/schema"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/writes"
)

// Table serves the registry's tools, calling Memos through a memos.Client:
// those of the release the instance runs, as the client learns it.
type Table struct {
	memos  *memos.Client
	finder finder.Finder // runs the hand-written tools
	locks  lease.Locker  // the memos' locks
	// releases are the rows of every release of the registry, in the
	// order of registry.Releases (and of Releases).
	releases []map[string]*tool
}

// New returns the Table of every registry tool, asking m, with f running
// the hand-written ones; the writes of a memo take its lock from f.Locks.
// m must have been made with Releases.
func New(m *memos.Client, f finder.Finder) *Table {
	tb := &Table{memos: m, finder: f, locks: f.Locks}
	guards := tb.guards()
	for _, r := range registry.Releases() {
		all := r.Tools()
		rows := make(map[string]*tool, len(all))
		for i := range all {
			t := &tool{def: &all[i], run: tb.callRoute}
			if g := t.def.Guard; g != "" {
				if t.run = guards[g]; t.run == nil {
					t.run = unguarded // TestEveryWriteHasAGuard fails first
				} else if lockedGuards[g] {
					t.run = tb.locked(t.run)
				}
			}
			if t.def.Handwritten != nil {
				t.run = tb.callFinder
			}
			rows[t.def.Name] = t
		}
		tb.releases = append(tb.releases, rows)
	}
	return tb
}

// Releases are the registry's releases as the memos client places an
// instance among them: each with the route that only it serves.
func Releases() []memos.Release {
	var rs []memos.Release
	for _, r := range registry.Releases() {
		rs = append(rs, memos.Release{Version: r.Version, Marker: r.Marker()})
	}
	return rs
}

// Release returns the index (in registry.Releases) of the release whose
// tools the instance is served: learnt by the memos client, which asks
// Memos only when it never learnt it.
func (tb *Table) Release(ctx context.Context) int {
	if i := tb.memos.Release(ctx); i < len(tb.releases) {
		return i
	}
	return 0
}

// Placed reports whether the release of the instance is learnt, so that
// Release asks nothing of Memos.
func (tb *Table) Placed() bool { return tb.memos.Placed() }

// tool returns the row of the named tool in the release the instance is
// served.
func (tb *Table) tool(ctx context.Context, name string) (*tool, bool) {
	t, ok := tb.releases[tb.Release(ctx)][name]
	return t, ok
}

// unguarded runs a tool whose curation names a guard this package has no
// function for: it refuses, rather than write unguarded.
func unguarded(context.Context, *tool, arguments, string) ([]byte, error) {
	return nil, errInternal
}

// tool is one row of the table: a registry tool, the function that runs
// it, and what its calls need, prepared on first use.
type tool struct {
	def  *registry.Tool
	run  runner
	once sync.Once
	prep *prepared
	err  error
}

// prepared is derived from a tool's definition once: the compiled input
// schema, the route template's pieces, and the body fields an updateMask
// may name.
type prepared struct {
	schema   *schema.Schema
	segments []segment
	hasMask  bool
	fields   []string // body fields in snake_case, for updateMask checks
}

func (t *tool) prepare() (*prepared, error) {
	t.once.Do(func() {
		p := &prepared{segments: parseTemplate(t.def.Path)}
		if p.schema, t.err = schema.Compile(t.def.InputSchema()); t.err != nil {
			return
		}
		for _, param := range t.def.Params {
			p.hasMask = p.hasMask || param.In == "query" && param.Name == maskParam
		}
		if p.hasMask {
			p.fields = bodyFields(t.def.InputSchema())
		}
		t.prep = p
	})
	return t.prep, t.err
}

// bodyFields lists the top-level fields of a tool's body schema, in
// snake_case.
func bodyFields(schema string) (fields []string) {
	rawjson.Parse(schema).Get("properties").Get("body").Get("properties").ForEach(func(k, _ rawjson.Value) bool {
		fields = append(fields, snakeCase(k.Str))
		return true
	})
	return fields
}

// View is the table limited to a selection of tools in each release (the
// deployment's, or its read-only part for a read-only grant): it lists
// only them and refuses a call to any other as to an unknown tool.
type View struct {
	tb   *Table
	sets []*registry.Set // by release
}

// Within returns the table limited to the selection, in each release:
// every selected tool, or (readOnly) the selected tools that only read.
func (tb *Table) Within(s *registry.Selection, readOnly bool) *View {
	v := &View{tb: tb}
	for _, r := range registry.Releases() {
		set := s.In(r).Full()
		if readOnly {
			set = s.In(r).ReadOnly()
		}
		v.sets = append(v.sets, set)
	}
	return v
}

// Release returns the index of the release the instance is served
// (Table.Release).
func (v *View) Release(ctx context.Context) int { return v.tb.Release(ctx) }

// Placed reports whether the instance's release is learnt (Table.Placed).
func (v *View) Placed() bool { return v.tb.Placed() }

// ListJSON returns the view's prepared tools array in a release.
func (v *View) ListJSON(release int) []byte { return v.sets[release].ListJSON() }

// Call runs the named tool when the view holds it.
func (v *View) Call(ctx context.Context, name string, args rawjson.Value, authorization string) ([]byte, error) {
	if _, ok := v.sets[v.Release(ctx)].Lookup(name); !ok {
		return nil, errUnknown
	}
	return v.tb.Call(ctx, name, args, authorization)
}

// Confirm returns the question to put to the person before the named tool
// runs, when the view holds it (Table.Confirm).
func (v *View) Confirm(ctx context.Context, name string, args rawjson.Value, authorization string) string {
	if _, ok := v.sets[v.Release(ctx)].Lookup(name); !ok {
		return ""
	}
	return v.tb.Confirm(ctx, name, args, authorization)
}

// errUnknown is a call to a tool the table or view does not hold; the MCP
// handler answers those before they reach here.
var errUnknown = errors.New("unknown tool")

// Call runs the named tool with the caller's Authorization and returns its
// CallToolResult as JSON, or the error to report as the tool's (isError):
// Memos' own failures are *memos.Error. The access log gets the tool's
// name and, for an error, its outcome.
func (tb *Table) Call(ctx context.Context, name string, args rawjson.Value, authorization string) ([]byte, error) {
	if err := tb.memos.Admits(authorization); err != nil {
		return nil, err // before the instance's release is asked
	}
	t, ok := tb.tool(ctx, name)
	if !ok {
		return nil, errUnknown
	}
	entry := accesslog.From(ctx)
	entry.SetTool(name)
	result, err := tb.call(ctx, t, args, authorization)
	if err != nil {
		entry.SetOutcome(accesslog.ToolError)
	}
	return result, err
}

func (tb *Table) call(ctx context.Context, t *tool, args rawjson.Value, authorization string) ([]byte, error) {
	if err := tb.memos.Admits(authorization); err != nil {
		return nil, err
	}
	a, err := t.arguments(args)
	if err != nil && !t.def.ReadOnly && !errors.Is(err, errInternal) {
		return nil, writes.Refuse(err.Error())
	}
	if err != nil {
		return nil, err
	}
	return t.run(ctx, t, a, authorization)
}

// callFinder runs a hand-written tool with the caller's credentials.
func (tb *Table) callFinder(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	return t.def.Handwritten.Run(&tb.finder, ctx, a.values, tb.caller(t, authorization))
}

// arguments decodes a call's arguments and validates them against the
// tool's input schema.
func (t *tool) arguments(args rawjson.Value) (arguments, error) {
	p, err := t.prepare()
	if err != nil {
		logline.Print("tool ", t.def.Name, ": input schema: ", err.Error())
		return arguments{}, errInternal
	}
	a, err := decodeArguments(args)
	if err != nil {
		return arguments{}, err
	}
	if err := p.schema.Validate(a.values); err != nil {
		return arguments{}, err
	}
	return a, nil
}

// callRoute runs a generated tool that reads: one request to Memos, built
// from the tool's route and the arguments, whose answer becomes the
// result. (Every write runs through its guard.)
func (tb *Table) callRoute(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, error) {
	obj, escapes, err := tb.answer(ctx, t, a, authorization)
	if err != nil {
		return nil, err
	}
	return successResult(obj, escapes), nil
}

// answer sends a generated tool's request and returns Memos' answer as the
// result object (normalize) and the count of its quotes and backslashes.
func (tb *Table) answer(ctx context.Context, t *tool, a arguments, authorization string) ([]byte, int, error) {
	r, err := t.request(a, authorization)
	if err != nil {
		return nil, 0, err
	}
	resp, err := tb.memos.Send(ctx, r)
	if err != nil {
		return nil, 0, err
	}
	return tb.object(r, resp)
}

// object is a successful answer as the result object, or the error that
// explains why it cannot be one.
func (tb *Table) object(r memos.Request, resp *web.Response) ([]byte, int, error) {
	obj, escapes, err := normalize(resp.Body)
	switch {
	case errors.Is(err, errNotJSON):
		return nil, 0, tb.memos.NotJSON(r, resp)
	case err != nil:
		return nil, 0, tb.memos.Failed(r, "HTTP "+strconv.Itoa(resp.Status)+": answer nests deeper than "+strconv.Itoa(memos.MaxAnswerDepth)+" levels ("+strconv.Itoa(len(resp.Body))+" bytes)",
			&memos.Error{Status: resp.Status, Msg: tooDeep})
	}
	return obj, escapes, nil
}

// request builds the Memos request of a generated tool from its checked
// arguments, for the caller with this Authorization: the route's path and
// declared query, and the body.
func (t *tool) request(a arguments, authorization string) (memos.Request, error) {
	p := t.prep
	path, err := buildPath(p.segments, a.values)
	if err != nil {
		return memos.Request{}, err
	}
	if p.hasMask {
		given, _ := a.values[maskParam].(string)
		mask, err := updateMask(given, rawjson.Parse(a.bodyRaw), p.fields)
		if err != nil {
			return memos.Request{}, err
		}
		a.values[maskParam] = mask
	}
	query, err := buildQuery(t.def, a.values)
	if err != nil {
		return memos.Request{}, err
	}
	r := memos.Request{Method: t.def.Method, Path: path + query, Authorization: authorization,
		Tool: t.def.Name, Route: t.def.Method + " " + t.def.Path, Learn: true}
	if loneSurrogate(a.bodyRaw) {
		return r, errors.New("body holds a lone surrogate (a \\ud800–\\udfff escape without its other half), which is not text: Memos refuses it; send the character whole, or leave it out")
	}
	if t.def.HasBody {
		r.Body = []byte(a.bodyRaw)
		if len(r.Body) == 0 {
			r.Body = []byte("{}")
		}
	}
	return r, nil
}
