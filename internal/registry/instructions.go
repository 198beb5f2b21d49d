package registry

import "strings"

// hints are the lines of the instructions a client gets in initialize and
// server/discover: which tool to use for what. Each names the tools it
// needs, and is given only to a caller served all of them.
var hints = []struct {
	text  string
	tools []string
}{
	{"Find memos with memo_search (words, tags, dates, open tasks); memo_get_memo reads one whole.", []string{"memo_search", "memo_get_memo"}},
	{"Change part of a memo (append or prepend a line, replace a passage, check a task) with memo_edit: it works on the text Memos holds now, so a change the person made meanwhile is kept.", []string{"memo_edit"}},
	{"To replace a memo's whole content with memo_update_memo, pass the contentHash memo_get_memo gave: if the memo changed since, nothing is written.", []string{"memo_update_memo", "memo_get_memo"}},
	{"To put a memo away, archive it (memo_update_memo with body.state ARCHIVED) rather than delete it: memo_delete_memo cannot be undone.", []string{"memo_update_memo", "memo_delete_memo"}},
}

// Instructions returns the instructions for a caller served the tools for
// which served reports true: the hints whose tools it is served, one a
// line; "" when none applies.
func Instructions(served func(tool string) bool) string {
	var lines []string
	for _, h := range hints {
		all := true
		for _, t := range h.tools {
			all = all && served(t)
		}
		if all {
			lines = append(lines, h.text)
		}
	}
	return strings.Join(lines, "\n")
}
