package finder

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// filler is a line of n words of ordinary text, none of them searched for.
func filler(n int) string {
	w := strings.Fields("the quick brown fox jumps over a lazy dog while rain falls")
	out := make([]string, n)
	for i := range out {
		out[i] = w[i%len(w)]
	}
	return strings.Join(out, " ")
}

func TestPassages(t *testing.T) {
	long := filler(30) + " boiler pressure 1.5 bar " + filler(30) // one line of about 370 characters
	for _, tc := range []struct {
		name    string
		content string
		words   []string
		tasks   bool
		budget  int
		want    string
		cut     bool
	}{
		{name: "short text whole", content: "Falcon review\n\n- [ ] ping Ann", words: []string{"falcon"}, budget: 100,
			want: "Falcon review\n\n- [ ] ping Ann"},
		{name: "the matched line, others cut", content: "Falcon review notes\n" + filler(12) + "\nthe code is 4711 for the gate\n" + filler(12),
			words: []string{"GATE"}, budget: 60,
			want: "…\nthe code is 4711 for the gate\n…", cut: true},
		{name: "a line per word, in the text's order", content: "Trip\n" + filler(10) + "\nflight LH 123 at 9:40\n" + filler(10) + "\nhotel Kranich, room 12\n" + filler(10),
			words: []string{"hotel", "flight"}, budget: 60,
			want: "…\nflight LH 123 at 9:40\n…\nhotel Kranich, room 12\n…", cut: true},
		{name: "open task lines", content: "Falcon\n" + filler(10) + "\n- [x] done already\n- [ ] call the plumber\n" + filler(10) + "\n  * [ ] buy filters\n1. [ ] pay the bill",
			tasks: true, budget: 70,
			want: "…\n- [ ] call the plumber\n…\n* [ ] buy filters\n1. [ ] pay the bill", cut: true},
		{name: "no words: the first lines", content: "Weekly review\nwent well\n" + filler(20) + "\nlast line",
			budget: 40, want: "Weekly review\nwent well\n…", cut: true},
		{name: "no words, a long first line", content: long, budget: 40,
			want: "the quick brown fox jumps over a lazy…", cut: true},
		{name: "a word matched twice, both lines", content: "Boiler\n" + filler(10) + "\nboiler serviced, 1.5 bar\n" + filler(10) + "\nboiler again in May",
			words: []string{"serviced", "boiler"}, budget: 80,
			want: "Boiler\n…\nboiler serviced, 1.5 bar\n…\nboiler again in May", cut: true},
		{name: "a memo of one long line: a window of whole words", content: long, words: []string{"pressure"}, budget: 60,
			want: "…fox jumps over boiler pressure 1.5 bar the quick brown…", cut: true},
		{name: "two windows in one long line", content: "start " + filler(40) + " alpha " + filler(40) + " omega " + filler(40),
			words: []string{"alpha", "omega"}, budget: 80,
			want: "…the quick brown fox alpha the quick brown fox" + " … " + "brown fox omega the quick…", cut: true},
		{name: "multibyte text", content: "Заметки\n" + strings.Repeat("日本語のテキスト", 10) + "\nКотёл: давление 1,5 бар\n" + strings.Repeat("文字", 30),
			words: []string{"КОТЁЛ"}, budget: 40, want: "…\nКотёл: давление 1,5 бар\n…", cut: true},
		{name: "multibyte long line without spaces", content: strings.Repeat("日本語", 40) + "ボイラー" + strings.Repeat("テキスト", 40),
			words: []string{"ボイラー"}, budget: 14, want: "…本語日本語ボイラーテキストテ…", cut: true},
		{name: "a word inside a longer one", content: filler(20) + "\nFalcons are fast\n" + filler(20), words: []string{"falcon"}, budget: 40,
			want: "…\nFalcons are fast\n…", cut: true},
		{name: "no match: the first lines", content: "Title\n" + filler(30), words: []string{"absent"}, budget: 30,
			want: "Title\nthe quick brown fox jumps…", cut: true},
		{name: "a line of tags alone, which the hit lists, is no match", content: "Serviced\n" + filler(20) + "\nboiler at 1.5 bar\n" + filler(20) + "\n#home/boiler #house",
			words: []string{"boiler"}, budget: 40, want: "…\nboiler at 1.5 bar\n…", cut: true},
		{name: "tags first, then the matched line", content: "#home/boiler #todo\n" + filler(20) + "\nboiler at 1.5 bar\n" + filler(20),
			words: []string{"boiler"}, budget: 40, want: "…\nboiler at 1.5 bar\n…", cut: true},
		{name: "only the tags match: the first lines", content: "Serviced at 1.5 bar\n" + filler(20) + "\n#home/boiler",
			words: []string{"boiler"}, budget: 30, want: "Serviced at 1.5 bar\n…", cut: true},
		{name: "a heading is no tag line", content: filler(20) + "\n# Boiler\n" + filler(20),
			words: []string{"boiler"}, budget: 30, want: "…\n# Boiler\n…", cut: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, cut := passages(tc.content, tc.words, tc.tasks, tc.budget)
			if got != tc.want || cut != tc.cut {
				t.Errorf("passages = %q, %t\nwant       %q, %t", got, cut, tc.want, tc.cut)
			}
			shown := utf8.RuneCountInString(strings.ReplaceAll(strings.ReplaceAll(got, cutMark, ""), "\n", ""))
			if cut && shown > tc.budget+4 {
				t.Errorf("%d characters shown, budget %d", shown, tc.budget)
			}
			if !utf8.ValidString(got) {
				t.Error("invalid UTF-8")
			}
		})
	}
}

// Whatever the budget, passages never cut inside a rune, never exceed the
// budget by more than the marks, and never lose a match that fits.
func TestPassagesBudgets(t *testing.T) {
	content := "Ünïcödé " + strings.Repeat("日本 ", 50) + "\nmatch here Ä\n" + filler(50)
	for budget := 1; budget < 400; budget += 7 {
		got, _ := passages(content, []string{"match"}, false, budget)
		if !utf8.ValidString(got) {
			t.Fatalf("budget %d: invalid UTF-8 %q", budget, got)
		}
		if budget >= 40 && !strings.Contains(got, "match here Ä") {
			t.Errorf("budget %d: %q lacks the matched line", budget, got)
		}
		if n := utf8.RuneCountInString(strings.ReplaceAll(got, cutMark, "")); n > budget+8 {
			t.Errorf("budget %d: %d characters", budget, n)
		}
	}
}

func TestTagLine(t *testing.T) {
	for line, want := range map[string]bool{
		"#home": true, "  #home/boiler #work\t#x ": true,
		"": false, "   ": false, "# Boiler": false, "## Plans": false, "##x": false, "#": false,
		"#home boiler": false, "boiler #home": false, "#a # b": false,
	} {
		if tagLine(line) != want {
			t.Errorf("tagLine(%q) = %t, want %t", line, !want, want)
		}
	}
}

func TestOpenTask(t *testing.T) {
	for line, want := range map[string]bool{
		"- [ ] a": true, "* [ ] a": true, "+ [ ] a": true, "  - [ ] nested": true, "12. [ ] n": true, "3) [ ] n": true,
		"- [x] done": false, "- [] no": false, "[ ] bare": false, "-[ ] tight": false, "text - [ ] later": false, "": false,
	} {
		if openTask(line) != want {
			t.Errorf("openTask(%q) = %t, want %t", line, !want, want)
		}
	}
}

// Choosing passages costs allocations by the matches it keeps, not by the
// memo's size: a memo a thousand times longer, full of matches and tasks,
// costs about as many.
func TestPassagesCost(t *testing.T) {
	memo := func(n int) string { return strings.Repeat("- [ ] boiler task\nboiler boiler line\n\n", n) }
	allocs := func(content string) float64 {
		return testing.AllocsPerRun(5, func() { passages(content, []string{"boiler", "line"}, true, hitBudget) })
	}
	small, large := allocs(memo(100)), allocs(memo(100_000))
	if large > small+5 {
		t.Errorf("%.0f allocations for a memo of %d bytes, %.0f for one of %d", large, len(memo(100_000)), small, len(memo(100)))
	}
	// One long line of tags, every word of it a match.
	tagged := func(n int) string { return strings.Repeat("#boiler ", n) + "\nline" }
	small, large = allocs(tagged(100)), allocs(tagged(100_000))
	if large > small+5 {
		t.Errorf("%.0f allocations for a line of %d tags, %.0f for one of 100", large, 100_000, small)
	}
}
