package finder

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// What a search hit shows of a memo's text, in characters (runes), and
// how hard the choosing works.
const (
	hitBudget  = 280  // a hit's passages together
	pageWhole  = 1200 // hits whose texts together are no longer show them whole
	lineWindow = 160  // the most of one long line shown around a match
	minPassage = 24   // less room than this left: no further passage
	maxAnchors = 32   // matches of a memo looked at
	snapRunes  = 24   // how far a cut looks for a space to fall on
)

// cutMark stands for text a result leaves out: inside a line for words,
// on a line of its own for lines.
const cutMark = "…"

// passages returns what a hit shows of content: the whole text when it
// has at most budget characters; else the lines that hold the words (any
// case) and, with tasks, the open task lines, within budget, a long line
// cut to a window of whole words around the match; without either, the
// first lines. cut reports whether text was left out, which the text marks
// with cutMark.
func passages(content string, words []string, tasks bool, budget int) (text string, cut bool) {
	content = strings.TrimSpace(content)
	if utf8.RuneCountInString(content) <= budget {
		return content, false
	}
	p := &picker{s: content, budget: budget, share: budget}
	anchors, first := p.anchors(words, tasks)
	if len(anchors) == 0 {
		p.firstLines()
	}
	if first > 1 {
		p.share = max(budget/first, 2*minPassage)
	}
	for _, a := range anchors {
		p.add(a)
	}
	return p.render()
}

// span is a piece of one line of the text: bytes from ≤ i < to.
type span struct{ from, to int }

// picker chooses the spans of a text to show.
type picker struct {
	s      string
	budget int
	share  int    // the most one match's window takes
	spans  []span // sorted, apart
	used   int    // characters in spans
}

// anchors returns the matches to show, the most telling first: each
// word's first match, the open task lines, then further matches in the
// order they occur; at most maxAnchors, none on a line of #tags alone.
// first is how many come before the further matches.
func (p *picker) anchors(words []string, tasks bool) (all []span, first int) {
	var lead, rest []span
	if len(words) > 0 {
		low, at := fold(p.s)
		var line span // of the last match, looked at once per word
		tags := false // whether it holds #tags alone, which the hit lists
		for _, w := range words {
			lw, _ := fold(w)
			led := false
			for i, k := 0, 0; lw != "" && k < maxAnchors; k++ {
				j := strings.Index(low[i:], lw)
				if j < 0 {
					break
				}
				i += j
				m := span{int(at[i]), int(at[i+len(lw)])}
				if m.from < line.from || m.from >= line.to {
					ls := lineStart(p.s, m.from)
					line = span{ls, lineEnd(p.s, ls)}
					tags = tagLine(p.s[line.from:line.to])
				}
				switch {
				case tags:
				case !led:
					lead, led = append(lead, m), true
				default:
					rest = append(rest, m)
				}
				i += len(lw)
			}
		}
	}
	if tasks {
		for ls := 0; ls < len(p.s) && len(lead) < maxAnchors; {
			le := lineEnd(p.s, ls)
			if openTask(p.s[ls:le]) {
				lead = append(lead, trimSpan(p.s, span{ls, le}))
			}
			ls = le + 1
		}
	}
	sortSpans(rest)
	all = append(lead, rest...)
	return all[:min(len(all), maxAnchors)], min(len(lead), maxAnchors)
}

// tagLine reports whether a line holds #tags alone (no heading's "# "),
// looking no further than its first word that is none.
func tagLine(line string) bool {
	line = strings.TrimSpace(line)
	for line != "" {
		if len(line) < 2 || line[0] != '#' || line[1] == '#' || unicode.IsSpace(rune(line[1])) {
			return false
		}
		end := strings.IndexFunc(line, unicode.IsSpace)
		if end < 0 {
			return true
		}
		line = strings.TrimLeftFunc(line[end:], unicode.IsSpace)
	}
	return false
}

// openTask reports whether a line is a Markdown task not yet done:
// "- [ ] …", also with *, +, or a number as the list mark.
func openTask(line string) bool {
	line = strings.TrimLeft(line, " \t")
	i := 0
	for i < len(line) && '0' <= line[i] && line[i] <= '9' {
		i++
	}
	switch {
	case i > 0 && i < len(line) && (line[i] == '.' || line[i] == ')'):
		i++
	case i == 0 && line != "" && strings.IndexByte("-*+", line[0]) >= 0:
		i = 1
	default:
		return false
	}
	return strings.HasPrefix(line[i:], " [ ]")
}

// firstLines chooses the text's first lines, as many as fit.
func (p *picker) firstLines() {
	for ls := 0; ls < len(p.s); {
		le := lineEnd(p.s, ls)
		if line := trimSpan(p.s, span{ls, le}); line.to > line.from {
			if runes(p.s, line) > p.budget-p.used {
				if p.used == 0 || p.budget-p.used >= minPassage {
					p.insert(p.window(line, p.budget-p.used))
				}
				return
			}
			p.insert(line)
		}
		ls = le + 1
	}
}

// add chooses the line of match a: whole when it fits what is left and a
// window, else a window of whole words around a, of at most share.
func (p *picker) add(a span) {
	left := p.budget - p.used
	if left < minPassage && p.used > 0 {
		return
	}
	for _, s := range p.spans {
		if s.from <= a.from && a.to <= s.to {
			return // shown already
		}
	}
	ls := lineStart(p.s, a.from)
	line := trimSpan(p.s, span{ls, lineEnd(p.s, ls)})
	if runes(p.s, line) <= min(left, lineWindow) {
		p.insert(line)
		return
	}
	p.insert(p.window(a, min(left, lineWindow, p.share)))
}

// window is a span of about w characters of a's line around a: as much
// before as after, cut at spaces where one is near.
func (p *picker) window(a span, w int) span {
	s := p.s
	ls := lineStart(s, a.from)
	line := trimSpan(s, span{ls, lineEnd(s, ls)})
	n := runes(s, a)
	if n >= w { // a itself is too long: its start
		to := forward(s, a.from, w, line.to)
		return span{a.from, snapEnd(s, a.from, to, line.to)}
	}
	before := (w - n) / 2
	from := back(s, a.from, before, line.from)
	to := forward(s, a.to, w-n-runes(s, span{from, a.from}), line.to)
	if spare := w - runes(s, span{from, to}); spare > 0 {
		from = back(s, from, spare, line.from)
	}
	return span{snapStart(s, from, a.from, line.from), snapEnd(s, a.to, to, line.to)}
}

// insert adds a span, merging it with those it overlaps.
func (p *picker) insert(n span) {
	if n.to <= n.from {
		return
	}
	out := make([]span, 0, len(p.spans)+1)
	for _, s := range p.spans {
		switch {
		case s.to < n.from || n.to < s.from:
			out = append(out, s)
		default:
			n = span{min(s.from, n.from), max(s.to, n.to)}
		}
	}
	out = append(out, n)
	sortSpans(out)
	p.spans, p.used = out, 0
	for _, s := range out {
		p.used += runes(p.s, s)
	}
}

// render writes the chosen spans in the text's order: words left out of a
// line become cutMark in the line, lines left out a line of cutMark.
func (p *picker) render() (string, bool) {
	s := p.s
	w := &marked{}
	var prev span
	prevLine := -1
	for i, sp := range p.spans {
		ls := lineStart(s, sp.from)
		switch {
		case i == 0:
			w.gap(s[:ls], cutMark+"\n")
		case ls == prevLine:
			w.b = append(w.b, ' ')
			w.gap(s[prev.to:sp.from], cutMark+" ")
		default:
			pe := lineEnd(s, prev.to)
			w.gap(s[prev.to:pe], cutMark)
			w.b = append(w.b, '\n')
			w.gap(s[pe:ls], cutMark+"\n")
		}
		if ls != prevLine {
			w.gap(s[ls:sp.from], cutMark)
		}
		w.b = append(w.b, s[sp.from:sp.to]...)
		prev, prevLine = sp, ls
	}
	if len(p.spans) > 0 {
		le := lineEnd(s, prev.to)
		w.gap(s[prev.to:le], cutMark)
		w.gap(s[le:], "\n"+cutMark)
	}
	return string(w.b), w.cut
}

// marked is text being written with marks where text is left out.
type marked struct {
	b   []byte
	cut bool
}

// gap writes mark when the text left out, gap, has any.
func (w *marked) gap(gap, mark string) {
	if strings.TrimSpace(gap) != "" {
		w.b = append(w.b, mark...)
		w.cut = true
	}
}

// lineStart is the start of the line that holds byte i.
func lineStart(s string, i int) int { return strings.LastIndexByte(s[:i], '\n') + 1 }

// fold returns s with each rune lower-cased, and for each of its bytes
// (and its end) where in s that byte's rune starts.
func fold(s string) (string, []int32) {
	b := make([]byte, 0, len(s))
	at := make([]int32, 0, len(s)+1)
	for i, r := range s {
		n := len(b)
		b = utf8.AppendRune(b, unicode.ToLower(r))
		for range len(b) - n {
			at = append(at, int32(i))
		}
	}
	return string(b), append(at, int32(len(s)))
}

// lineEnd is the end of the line that holds byte i: its newline, or the
// text's end.
func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}

// trimSpan narrows a span to leave out white space at its ends.
func trimSpan(s string, sp span) span {
	t := s[sp.from:sp.to]
	lead := len(t) - len(strings.TrimLeftFunc(t, unicode.IsSpace))
	return span{sp.from + lead, sp.from + len(strings.TrimRightFunc(t, unicode.IsSpace))}
}

func runes(s string, sp span) int { return utf8.RuneCountInString(s[sp.from:sp.to]) }

// back moves from i back by up to n runes, not before lo.
func back(s string, i, n, lo int) int {
	for ; n > 0 && i > lo; n-- {
		_, w := utf8.DecodeLastRuneInString(s[lo:i])
		i -= w
	}
	return i
}

// forward moves from i on by up to n runes, not past hi.
func forward(s string, i, n, hi int) int {
	for ; n > 0 && i < hi; n-- {
		_, w := utf8.DecodeRuneInString(s[i:hi])
		i += w
	}
	return i
}

// snapStart moves a window's start from on to the start of a word, when
// from falls inside one and a space is near and before limit; lo is the
// line's start.
func snapStart(s string, from, limit, lo int) int {
	if from == lo {
		return from
	}
	if r, _ := utf8.DecodeLastRuneInString(s[:from]); unicode.IsSpace(r) {
		return from
	}
	for i, k := from, 0; i < limit && k < snapRunes; k++ {
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		if unicode.IsSpace(r) {
			return trimSpan(s, span{i, limit}).from
		}
	}
	return from
}

// snapEnd moves a window's end to back to the end of a word, when to
// falls inside one and a space is near and after limit; hi is the line's
// end.
func snapEnd(s string, limit, to, hi int) int {
	if to == hi {
		return to
	}
	if r, _ := utf8.DecodeRuneInString(s[to:]); unicode.IsSpace(r) {
		return to
	}
	for i, k := to, 0; i > limit && k < snapRunes; k++ {
		r, w := utf8.DecodeLastRuneInString(s[:i])
		i -= w
		if unicode.IsSpace(r) {
			return trimSpan(s, span{limit, i}).to
		}
	}
	return to
}

// sortSpans sorts spans by where they start (insertion sort: a memo
// yields a few).
func sortSpans(t []span) {
	for i := 1; i < len(t); i++ {
		for j := i; j > 0 && t[j].from < t[j-1].from; j-- {
			t[j], t[j-1] = t[j-1], t[j]
		}
	}
}
