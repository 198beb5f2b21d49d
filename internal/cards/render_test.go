package cards

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rendered runs the card's renderer under Node on each Markdown text.
func rendered(t *testing.T, texts []string) []string {
	t.Helper()
	node := filepath.Join("..", "..", "node_modules", ".bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("%s is missing: run make (npm ci) first; the card's renderer runs under Node", node)
	}
	in, err := json.Marshal(texts)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join("testdata", "render.mjs"), "card.html")
	cmd.Stdin, cmd.Stderr = bytes.NewReader(in), os.Stderr
	out, err := cmd.Output()
	var html []string
	if err == nil {
		err = json.Unmarshal(out, &html)
	}
	if err != nil || len(html) != len(texts) {
		t.Fatalf("node answered %d texts of %d: %v", len(html), len(texts), err)
	}
	return html
}

// ownMarkup is every tag the renderer writes, with the attributes it
// gives them: anything else in its output would be a memo's.
var ownMarkup = regexp.MustCompile(`^<(?:/?(?:p|ul|ol|li|pre|code|strong|em|s|blockquote|h[1-6]|label|span|a)|br|hr|` +
	`li class="task"|span class="tag"|span class="ctl" title="a hidden character"|` +
	`input type="checkbox" data-task="\d+" data-text="[^"<>]*"(?: checked)?|` +
	`a href="(?:https?|mailto):[^"<>]*" data-open="(?:https?|mailto):[^"<>]*" rel="noopener noreferrer")>`)

// checkOwnMarkup fails for any markup in html that is not the renderer's own.
func checkOwnMarkup(t *testing.T, source, html string) {
	t.Helper()
	for i := strings.IndexByte(html, '<'); i >= 0; i = strings.IndexByte(html, '<') {
		tag := ownMarkup.FindString(html[i:])
		if tag == "" {
			t.Errorf("%q renders markup of its own: …%s", source, html[i:min(len(html), i+60)])
			return
		}
		html = html[i+len(tag):]
	}
	if strings.ContainsAny(html, ">") && strings.Count(html, ">") != strings.Count(html, "&gt;") {
		t.Errorf("%q leaves a bare > in text", source)
	}
}

// A memo renders as Memos shows it (headings, lists, tasks, code, links,
// tags) and only as the renderer's own markup: a memo's HTML, script
// URLs and hidden characters come out as visible text.
func TestRender(t *testing.T) {
	cases := []struct {
		name, markdown string
		want           []string // in the output, in order
		not            []string
	}{
		{name: "heading and tags", markdown: "# Garden plan\nPlant #garden/bulbs before #frost.",
			want: []string{"<h1>Garden plan</h1>", `<span class="tag">#garden/bulbs</span>`, `<span class="tag">#frost</span>.`}},
		{name: "tasks", markdown: "- [ ] buy bulbs\n- [x] dig *beds*\n* plain",
			want: []string{`<ul><li class="task"><label><input type="checkbox" data-task="0" data-text="buy bulbs">`,
				`data-task="1" data-text="dig *beds*" checked><span>dig <em>beds</em></span>`, `<li>plain</li></ul>`}},
		{name: "ordered list", markdown: "1. one\n2. two", want: []string{"<ol><li>one</li><li>two</li></ol>"}},
		{name: "code keeps its text", markdown: "```\n<b>#not-a-tag</b> [x](javascript:y)\n```\nand `<i>`",
			want: []string{"<pre><code>&lt;b&gt;#not-a-tag&lt;/b&gt; [x](javascript:y)</code></pre>", "<code>&lt;i&gt;</code>"}, not: []string{`class="tag"`}},
		{name: "links", markdown: "[site](https://example.com/a?b=1&c=2) and https://x.example/p",
			want: []string{`<a href="https://example.com/a?b=1&amp;c=2" data-open="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer">site</a>`,
				`<a href="https://x.example/p"`}},
		{name: "script", markdown: "<script>parent.postMessage('x','*')</script>", want: []string{"&lt;script&gt;parent.postMessage(&#39;x&#39;,&#39;*&#39;)&lt;/script&gt;"}, not: []string{"<script"}},
		{name: "img onerror", markdown: `<img src=x onerror="alert(1)">`, want: []string{"&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"}, not: []string{"<img"}},
		{name: "javascript link", markdown: "[click](javascript:alert(1)) [d](data:text/html,x) [v](vbscript:x)",
			want: []string{"[click](javascript:alert(1))", "[d](data:text/html,x)"}, not: []string{"<a"}},
		{name: "quote breaking out of an attribute", markdown: `- [ ] a" onclick="x`, want: []string{`data-text="a&quot; onclick=&quot;x"`}},
		{name: "link text with markup", markdown: `[<img src=x>](https://e.example)`, want: []string{`>&lt;img src=x&gt;</a>`}},
		{name: "bidi override", markdown: "invoice\u202eFDP.exe", want: []string{`invoice<span class="ctl" title="a hidden character">U+202E</span>FDP.exe`}},
		{name: "zero width in a tag", markdown: "#pa\u200bid", want: []string{`U+200B`}},
		{name: "entity", markdown: "&lt;b&gt; &#x3c;", want: []string{"&amp;lt;b&amp;gt; &amp;#x3c;"}},
		{name: "quote and rule", markdown: "> said\n\n---", want: []string{"<blockquote>said</blockquote>", "<hr>"}},
	}
	var texts []string
	for _, tc := range cases {
		texts = append(texts, tc.markdown)
	}
	html := rendered(t, texts)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := html[i]
			rest := got
			for _, w := range tc.want {
				j := strings.Index(rest, w)
				if j < 0 {
					t.Fatalf("want %s\nin   %s", w, got)
				}
				rest = rest[j+len(w):]
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("%s holds %s", got, n)
				}
			}
			checkOwnMarkup(t, tc.markdown, got)
		})
	}
}

// Hostile fragments in any order render as the renderer's own markup
// only.
func TestRenderOnlyOwnMarkup(t *testing.T) {
	parts := []string{"<script>", "</script>", "<img src=x onerror=alert(1)>", `"`, "'", "`", "[", "](", ")", "javascript:", "https://e.example/",
		"#", "# ", "- [ ] ", "- [x] ", "1. ", "> ", "```", "**", "*", "~~", "\n", "\u202e", "\u2066", "<a href=\"javascript:x\">", "&", "<", ">", " ", "tag", "<svg onload=x>", "<!--", "-->"}
	r := rand.New(rand.NewPCG(44, 1865))
	var texts []string
	for range 400 {
		var b strings.Builder
		for range 1 + r.IntN(14) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		texts = append(texts, b.String())
	}
	for i, html := range rendered(t, texts) {
		checkOwnMarkup(t, texts[i], html)
	}
}
