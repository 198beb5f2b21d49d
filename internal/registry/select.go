package registry

import (
	"errors"
	"strconv"
	"strings"
	"sync"
)

// Selection is the part of the registry a deployment serves, as its owner
// chose it (READ_ONLY, TOOLS). It holds two sets: every selected tool, and
// the selected tools that are read-only, for a caller allowed to read only.
// With a read-only deployment both are the read-only set, so whichever of
// the deployment and the caller is stricter wins.
type Selection struct {
	all, readOnly *Set
	// releases are the selections of every release of the build, in the
	// order of Releases: the same entries, applied to each release's tools.
	releases []*Selection
}

// Set is a fixed set of tools with its tools/list array, which is joined
// from the tools' prepared entries on first use and kept.
type Set struct {
	tools  []*Tool
	byName map[string]*Tool
	list   func() []byte
}

// Select returns the tools of the pinned release that readOnly and entries
// select, and through In those of every release. Each entry is a tool name,
// or the start of names (memo_) when no tool has that name; a name selects
// the tool of the same curated operation in every release, whatever that
// release calls it (shortcut_list_shortcuts is memo_view_list_memo_views on
// v0.31). An entry starting with "-" removes what it matches. Without any
// adding entry every tool is the starting point. An entry that matches no
// tool, or a selection left empty, is an error that names it.
func Select(readOnly bool, entries []string) (*Selection, error) {
	var add, remove []string
	var errs []error
	for _, e := range entries {
		name, removing := strings.CutPrefix(e, "-")
		if !matchesAny(name) {
			errs = append(errs, errors.New("TOOLS entry "+strconv.Quote(e)+" matches no tool"+suggest(name)))
			continue
		}
		if removing {
			remove = append(remove, name)
		} else {
			add = append(add, name)
		}
	}
	var releases []*Selection
	for _, r := range Releases() {
		s := selectIn(r, readOnly, add, remove)
		if s.all.Len() == 0 && len(errs) == 0 {
			errs = append(errs, errors.New("TOOLS and READ_ONLY together select no tool of Memos "+r.Version+": serve at least one"))
		}
		releases = append(releases, s)
	}
	for _, s := range releases {
		s.releases = releases
	}
	return releases[0], errors.Join(errs...)
}

// selectIn is the selection of one release.
func selectIn(r *Release, readOnly bool, add, remove []string) *Selection {
	var chosen []*Tool
	tools := r.Tools()
	for i := range tools {
		t := &tools[i]
		if (len(add) == 0 || matches(t, add)) && !matches(t, remove) && (t.ReadOnly || !readOnly) {
			chosen = append(chosen, t)
		}
	}
	s := &Selection{all: newSet(chosen)}
	s.readOnly = s.all
	if !readOnly {
		var reads []*Tool
		for _, t := range chosen {
			if t.ReadOnly {
				reads = append(reads, t)
			}
		}
		s.readOnly = newSet(reads)
	}
	return s
}

// In returns the selection of release r: the same choice, of its tools.
func (s *Selection) In(r *Release) *Selection { return s.releases[r.index] }

// Writes reports whether the selection serves a tool that changes
// something in any release.
func (s *Selection) Writes() bool {
	for _, r := range s.releases {
		if r.all.Len() != r.readOnly.Len() {
			return true
		}
	}
	return false
}

// Full returns the set a caller allowed to write gets: every selected tool.
func (s *Selection) Full() *Set { return s.all }

// ReadOnly returns the set a caller allowed to read only gets: the selected
// tools that only read.
func (s *Selection) ReadOnly() *Set { return s.readOnly }

func newSet(chosen []*Tool) *Set {
	s := &Set{tools: chosen, byName: make(map[string]*Tool, len(chosen))}
	for _, t := range chosen {
		s.byName[t.Name] = t
	}
	s.list = sync.OnceValue(func() []byte {
		n := 2
		for _, t := range chosen {
			n += len(t.definition) + 1
		}
		b := make([]byte, 0, n)
		b = append(b, '[')
		for i, t := range chosen {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, t.definition...)
		}
		return append(b, ']')
	})
	return s
}

// ListJSON returns the set's tools/list array.
func (s *Set) ListJSON() []byte { return s.list() }

// Lookup returns the tool called name when the set holds it.
func (s *Set) Lookup(name string) (*Tool, bool) {
	t, ok := s.byName[name]
	return t, ok
}

// Names returns the set's tool names in tools/list order.
func (s *Set) Names() []string {
	names := make([]string, len(s.tools))
	for i, t := range s.tools {
		names[i] = t.Name
	}
	return names
}

// Len is the number of tools in the set.
func (s *Set) Len() int { return len(s.tools) }

// matches reports whether one of entries selects t. An entry that is a
// tool's name selects that tool only (memo_delete_memo is not
// memo_delete_memo_reaction), in every release; any other entry is a
// prefix.
func matches(t *Tool, entries []string) bool {
	for _, e := range entries {
		if t.Name == e || strings.HasPrefix(t.Name, e) && !isName(e) || t.Curated != "" && t.Curated == curatedAs(e) {
			return true
		}
	}
	return false
}

// curatedAs returns the curated operation of the generated tool called
// name in any release, "" for none.
func curatedAs(name string) string {
	for _, r := range Releases() {
		for i := range r.tools {
			if r.tools[i].Name == name {
				return r.tools[i].Curated
			}
		}
	}
	return ""
}

// isName reports whether a registry tool is called s.
func isName(s string) bool {
	for _, name := range everyName() {
		if name == s {
			return true
		}
	}
	return false
}

// everyName is the tool names of every release of the build, each once,
// in name order: a TOOLS entry may name a tool of any of them.
var everyName = sync.OnceValue(func() []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range Releases() {
		for _, t := range r.Tools() {
			if !seen[t.Name] {
				seen[t.Name] = true
				names = append(names, t.Name)
			}
		}
	}
	for i := 1; i < len(names); i++ { // few, nearly sorted
		for j := i; j > 0 && names[j] < names[j-1]; j-- {
			names[j], names[j-1] = names[j-1], names[j]
		}
	}
	return names
})

// matchesAny reports whether entry selects at least one registry tool.
func matchesAny(entry string) bool {
	if entry == "" {
		return false
	}
	for _, name := range everyName() {
		if strings.HasPrefix(name, entry) {
			return true
		}
	}
	return false
}

// suggest says what a TOOLS entry that matches no tool may have meant: the
// nearest tool name when one is close, else every name (tools/list cannot
// show them: /mcp refuses to serve while an entry is wrong).
func suggest(entry string) string {
	best, bestDist := "", 4 // at most 3 edits away
	names := everyName()    // the hand-written tools too
	for _, name := range names {
		if d := editDistance(entry, name, bestDist); d < bestDist {
			best, bestDist = name, d
		}
	}
	if best != "" {
		return ": did you mean " + best + "?"
	}
	return ": the tools are " + strings.Join(names, ", ") + " (a start of names, such as memo_, selects a group)"
}

// editDistance is the Levenshtein distance between a and b, or limit when
// it is at least limit (long entries are not compared at all).
func editDistance(a, b string, limit int) int {
	if len(a)-len(b) >= limit || len(b)-len(a) >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}
