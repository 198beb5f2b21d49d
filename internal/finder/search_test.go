package finder

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// listing is a fake Memos whose ListMemos answers with memos.
func listing(memos ...string) *fakeMemos {
	m := newFake()
	m.answers["/api/v1/memos"] = `{"memos":[` + strings.Join(memos, ",") + `]}`
	return m
}

// compact is JSON without spaces between tokens.
func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return b.String()
}

// A hit holds its name, its times in the call's zone (else the
// deployment's) with their offset, what the call does not imply, and the
// passages of its text, marked when cut; the page names the zone only when
// the call did not. The answer is its one text item, JSON, sent once.
func TestSearchHits(t *testing.T) {
	long := "Falcon review notes\n" + filler(150) + "\n- [ ] review the Falcon PR by Friday\n" + filler(150)
	monday := `{"name":"memos/m1","creator":"users/ann","createTime":"2026-11-29T23:13:22Z","updateTime":"2026-11-29T23:50:00Z",` +
		`"content":"Standup moved to 9:30","visibility":"PRIVATE","pinned":false,"tags":[]}`
	summer := `{"name":"memos/m2","creator":"users/bob","createTime":"2026-07-01T10:00:00Z","updateTime":"2026-07-03T08:00:00Z",` +
		`"content":` + quoteJSON(long) + `,"visibility":"PUBLIC","pinned":true,"tags":["work/falcon"]}`
	cutText := "…\n- [ ] review the Falcon PR by Friday\n…"
	mine := strings.Replace(summer, "users/bob", "users/ann", 1) // scope mine
	standups := strings.TrimSpace(strings.Repeat("standup ", 60))
	many := strings.Replace(monday, "Standup moved to 9:30", standups, 1)
	notes := `Weekly\n` + filler(30) + `\nstandup moved to 10:00\n` + filler(30) // 380 characters
	for _, tc := range []struct {
		name  string
		f     Finder
		args  map[string]any
		memos []string
		want  string // the text, as JSON
	}{
		{name: "the deployment's zone, scope all", f: Finder{Zone: "Europe/Berlin"}, args: map[string]any{"text": "falcon friday", "scope": "all"},
			memos: []string{monday, summer},
			want: `{"memos":[
				{"name":"memos/m1","created":"2026-11-30T00:13:22+01:00","creator":"users/ann","text":"Standup moved to 9:30"},
				{"name":"memos/m2","created":"2026-07-01T12:00:00+02:00","updated":"2026-07-03T10:00:00+02:00","creator":"users/bob","byOtherUser":"users/bob","visibility":"PUBLIC","pinned":true,
				 "tags":["work/falcon"],"text":"Falcon review notes\n` + strings.ReplaceAll(cutText, "\n", `\n`) + `","cut":true}],
				"timezone":"Europe/Berlin","url":"https://memos.example/memos/{id}"}`},
		{name: "the call's zone over the deployment's; what the call implies left out", f: Finder{Zone: "Europe/Berlin"},
			args:  map[string]any{"openTasks": true, "visibility": "PUBLIC", "pinned": true, "timezone": "UTC"},
			memos: []string{mine},
			want: `{"memos":[{"name":"memos/m2","created":"2026-07-01T10:00:00Z","updated":"2026-07-03T08:00:00Z","tags":["work/falcon"],
				"text":"` + strings.ReplaceAll(cutText, "\n", `\n`) + `","cut":true}],
				"url":"https://memos.example/memos/{id}"}`},
		{name: "no deployment zone: UTC; a day's first lines", args: map[string]any{"on": "2026-07-01"}, memos: []string{mine},
			want: `{"memos":[{"name":"memos/m2","created":"2026-07-01T10:00:00Z","updated":"2026-07-03T08:00:00Z","visibility":"PUBLIC","pinned":true,"tags":["work/falcon"],
				"text":"Falcon review notes\n` + filler(53) + `…\n…","cut":true}],
				"timezone":"UTC","url":"https://memos.example/memos/{id}"}`},
		{name: "a day's few and short memos: whole", args: map[string]any{"on": "2026-11-29"}, memos: []string{monday, many},
			want: `{"memos":[{"name":"memos/m1","created":"2026-11-29T23:13:22Z","text":"Standup moved to 9:30"},
				{"name":"memos/m1","created":"2026-11-29T23:13:22Z","text":"` + standups + `"}],
				"timezone":"UTC","url":"https://memos.example/memos/{id}"}`},
		{name: "words in few and short memos: the matches", args: map[string]any{"text": "moved"}, memos: []string{monday, strings.Replace(monday, "Standup moved to 9:30", notes, 1)},
			want: `{"memos":[{"name":"memos/m1","created":"2026-11-29T23:13:22Z","text":"Standup moved to 9:30"},
				{"name":"memos/m1","created":"2026-11-29T23:13:22Z","text":"…\nstandup moved to 10:00\n…","cut":true}],
				"timezone":"UTC","url":"https://memos.example/memos/{id}"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.Offsets = GoOffsets
			tc.f.Now = func() time.Time { return utc("2026-12-01T10:00:00Z") }
			got, err, _ := call(&tc.f, "memo_search", tc.args, listing(tc.memos...))
			if err != nil {
				t.Fatal(err)
			}
			var res map[string]json.RawMessage
			if err := json.Unmarshal(got, &res); err != nil {
				t.Fatal(err)
			}
			var content []struct{ Type, Text string }
			if err := json.Unmarshal(res["content"], &content); err != nil || len(res) != 1 || len(content) != 1 || content[0].Type != "text" {
				t.Fatalf("want one text item and nothing else: %s", got)
			}
			if want := compact(t, tc.want); content[0].Text != want {
				t.Errorf("text\n%s\nwant\n%s", content[0].Text, want)
			}
		})
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Times Memos writes read back in a zone with its offset then; anything
// else passes through.
func TestShowTime(t *testing.T) {
	berlin, err := loadZone("Europe/Berlin", GoOffsets)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"2026-11-29T23:13:22Z":      "2026-11-30T00:13:22+01:00",
		"2026-03-29T00:59:59Z":      "2026-03-29T01:59:59+01:00", // the last second of winter time
		"2026-03-29T01:00:00Z":      "2026-03-29T03:00:00+02:00",
		"2026-07-01T10:00:00.250Z":  "2026-07-01T12:00:00+02:00",
		"2026-07-01T10:00:00+02:00": "2026-07-01T10:00:00+02:00",
		"yesterday":                 "yesterday",
		"":                          "",
	} {
		if got := berlin.show(in); got != want {
			t.Errorf("show(%q) = %q, want %q", in, got, want)
		}
	}
	if err := CheckZone("Mars/Olympus", GoOffsets); err == nil || !strings.Contains(err.Error(), "TIMEZONE") {
		t.Errorf("CheckZone of an unknown zone: %v", err)
	}
	for _, ok := range []string{"", "UTC", "Europe/Berlin"} {
		if err := CheckZone(ok, GoOffsets); err != nil {
			t.Errorf("CheckZone(%q): %v", ok, err)
		}
	}
}

// What every answer would repeat is said once, in memo_search's
// description: what … and cut mean, how to read a memo whole, how a
// memo's web page is made from url; and the answers are text alone.
func TestSearchDescription(t *testing.T) {
	if outputSchema("memo_search") {
		t.Error("memo_search declares an output schema")
	}
	d := definition("memo_search").Get("description").Str
	for _, want := range []string{cutMark + " marks text left out", "cut:true", "memo_get_memo reads a memo whole", "url: a memo's web page, {id} its name after memos/", "pageToken=nextPageToken"} {
		if !strings.Contains(d, want) {
			t.Errorf("the description does not say %q: %s", want, d)
		}
	}
}

// A hit counts its comments and attachments, and the comments of the
// first hits that have some are searched for the words too: one request
// each, at most maxCommentReads; other users' comments are marked, and
// under LOCKDOWN left out. state reaches Memos.
func TestSearchComments(t *testing.T) {
	for _, lockdown := range []bool{false, true} {
		m := newFake()
		m.lockdown = lockdown
		var page []string
		for i := range maxCommentReads + 2 {
			id := "m" + strconv.Itoa(i)
			page = append(page, `{"name":"memos/`+id+`","creator":"users/ann","content":"the plumber came","createTime":"2026-03-01T10:00:00Z",`+
				`"attachments":[{"name":"attachments/q"}],"relations":[{"memo":{"name":"memos/c`+id+`"},"relatedMemo":{"name":"memos/`+id+`"},"type":"COMMENT"},`+
				`{"memo":{"name":"memos/`+id+`"},"relatedMemo":{"name":"memos/other"},"type":"REFERENCE"}]}`)
			m.answers["/api/v1/memos/"+id+"/comments"] = `{"memos":[{"name":"memos/c` + id + `","creator":"users/bob","content":"the Plumber \u202equote: 90 EUR","createTime":"2026-03-02T10:00:00Z"},` +
				`{"name":"memos/d` + id + `","creator":"users/ann","content":"nothing about it","createTime":"2026-03-02T11:00:00Z"}]}`
		}
		m.answers["/api/v1/memos"] = `{"memos":[` + strings.Join(page, ",") + `]}`
		got, err, _ := call(&Finder{}, "memo_search", map[string]any{"text": "plumber", "state": "ARCHIVED"}, m)
		if err != nil {
			t.Fatal(err)
		}
		hits := gjson.Parse(gjson.GetBytes(got, "content.0.text").Str).Get("memos").Array()
		reads := 0
		for _, a := range m.asked {
			if strings.HasSuffix(strings.Split(a, "?")[0], "/comments") {
				reads++
			}
		}
		if len(hits) != maxCommentReads+2 || reads != maxCommentReads || !strings.Contains(strings.Join(m.asked, " "), "state=ARCHIVED") {
			t.Fatalf("%d hits, %d comment reads; asked %v", len(hits), reads, m.asked)
		}
		first := hits[0]
		if first.Get("comments").Int() != 1 || first.Get("attachments").Int() != 1 {
			t.Errorf("counts: %s", first.Raw)
		}
		in := first.Get("inComments").Array()
		switch {
		case lockdown && len(in) != 0:
			t.Errorf("under LOCKDOWN, bob's comment: %s", first.Raw)
		case !lockdown && (len(in) != 1 || in[0].Get("byOtherUser").Str != "users/bob" || in[0].Get("text").Str != "the Plumber quote: 90 EUR"):
			t.Errorf("inComments: %s", first.Raw)
		}
		if hits[maxCommentReads].Get("inComments").Exists() {
			t.Errorf("a hit past the reads has comments found: %s", hits[maxCommentReads].Raw)
		}
	}
}
