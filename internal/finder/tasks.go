package finder

import (
	"strconv"
	"strings"
)

// task is a task line of a memo ("- [ ] text", "* [x] text", "+ [ ] text",
// indented or not): where its line and its box's mark are in the content,
// whether it is checked, and its text.
type task struct {
	start, end, mark int
	done             bool
	text             string
}

// parseTask reads line as a task, its offsets relative to the line.
func parseTask(line string) (task, bool) {
	l := strings.TrimLeft(line, " \t")
	if len(l) < 5 || !strings.ContainsRune("-*+", rune(l[0])) || l[1] != ' ' || l[2] != '[' || l[4] != ']' ||
		len(l) > 5 && l[5] != ' ' && l[5] != '\t' {
		return task{}, false
	}
	switch l[3] {
	case ' ', 'x', 'X':
	default:
		return task{}, false
	}
	return task{end: len(line), mark: len(line) - len(l) + 3, done: l[3] != ' ', text: strings.TrimSpace(l[5:])}, true
}

// maxTasksNamed bounds how many tasks a refusal names.
const maxTasksNamed = 10

// findTask finds the one task of content, checked or not (done), whose
// text is want, or else the one whose text contains it; a task whose
// text is want in the other state wins over one that contains it. Lines inside fenced
// code blocks are not tasks. want may be given as a whole task line.
func findTask(name, content, want string, done bool) (task, error) {
	if t, ok := parseTask(want); ok {
		want = t.text
	}
	if want == "" {
		return task{}, fail("give the task's text")
	}
	var exact task
	var partial []task
	var named []string
	exactN, partialN, otherN := 0, 0, 0
	fenced := false
	for start := 0; start < len(content); {
		end := strings.IndexByte(content[start:], '\n')
		next := start + end + 1
		if end < 0 {
			end, next = len(content)-start, len(content)
		}
		line := strings.TrimSuffix(content[start:start+end], "\r")
		if l := strings.TrimLeft(line, " \t"); strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
			fenced = !fenced
		}
		if t, ok := parseTask(line); ok && !fenced {
			t.start, t.end, t.mark = start, start+t.end, start+t.mark
			switch {
			case t.done != done:
				if t.text == want {
					otherN++
				}
			case t.text == want:
				exactN++
				exact = t
			case strings.Contains(t.text, want):
				partialN++
				if len(partial) < maxTasksNamed {
					partial = append(partial, t)
				}
			}
			if t.done == done && len(named) < maxTasksNamed {
				named = append(named, line)
			}
		}
		start = next
	}
	state, other := "open", "checked"
	if done {
		state, other = other, state
	}
	switch {
	case exactN == 1:
		return exact, nil
	case exactN > 1:
		return task{}, fail(strconv.Itoa(exactN) + " " + state + " tasks of " + name + " read " + strconv.Quote(want) + ": change the one you mean with replace, quoting it with the text around it")
	case otherN > 0:
		// Exactly this text, already done: not a longer task that
		// contains it ("buy milk" checked, "buy milk and eggs" open).
		return task{}, fail("the task " + strconv.Quote(want) + " of " + name + " is already " + other + "; nothing was written")
	case partialN == 1:
		return partial[0], nil
	case partialN > 1:
		lines := make([]string, len(partial))
		for i, t := range partial {
			lines[i] = content[t.start:t.end]
		}
		return task{}, fail(strconv.Itoa(partialN) + " " + state + " tasks of " + name + " contain " + strconv.Quote(want) + ": give the whole text of the one you mean. They include:\n" + strings.Join(lines, "\n"))
	case len(named) == 0:
		return task{}, fail(name + " has no " + state + " task")
	}
	return task{}, fail("no " + state + " task of " + name + " reads or contains " + strconv.Quote(want) + ". Its " + state + " tasks include:\n" + strings.Join(named, "\n"))
}
