package writes

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// Holds compares what Memos holds with what a write meant by value.
func TestHolds(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
		holds           bool
	}{
		{"same text", `{"content":"a","pinned":true}`, `{"content":"a"}`, true},
		{"other text", `{"content":"a"}`, `{"content":"b"}`, false},
		{"a time as another instant's text", `{"createTime":"2026-03-01T10:00:00Z"}`, `{"createTime":"2026-03-01T11:00:00.000+01:00"}`, true},
		{"another time", `{"createTime":"2026-03-01T10:00:00Z"}`, `{"createTime":"2026-03-01T10:00:01Z"}`, false},
		{"numbers by value", `{"location":{"latitude":52.50}}`, `{"location":{"latitude":5.25e1}}`, true},
		{"a list in another order", `{"attachments":[{"name":"attachments/b","filename":"b"},{"name":"attachments/a"}]}`, `{"attachments":[{"name":"attachments/a"},{"name":"attachments/b"}]}`, true},
		{"a list with one more", `{"attachments":[{"name":"attachments/a"},{"name":"attachments/c"}]}`, `{"attachments":[{"name":"attachments/a"}]}`, false},
		{"a list with one less", `{"attachments":[]}`, `{"attachments":[{"name":"attachments/a"}]}`, false},
		{"an empty value Memos leaves out", `{"content":"a"}`, `{"pinned":false,"attachments":[],"visibility":""}`, true},
		{"a value Memos leaves out", `{"content":"a"}`, `{"pinned":true}`, false},
		{"a string for a number", `{"n":"1"}`, `{"n":1}`, false},
		{"another visibility", `{"visibility":"PUBLIC"}`, `{"visibility":"PRIVATE"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Holds(rawjson.Parse(tc.got), rawjson.Parse(tc.want)); got != tc.holds {
				t.Errorf("Holds(%s, %s) = %t", tc.got, tc.want, got)
			}
		})
	}
	if d := Differs(rawjson.Parse(`{"visibility":"PUBLIC","pinned":true}`), rawjson.Parse(`{"visibility":"PRIVATE","pinned":true}`)); len(d) != 1 || d[0] != "visibility" {
		t.Errorf("Differs = %v", d)
	}
}

// Holds of JSON nested deeper than any body the schemas admit is false,
// without recursing further.
func TestHoldsDepth(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 100) + `1` + strings.Repeat(`}`, 100)
	if Holds(rawjson.Parse(deep), rawjson.Parse(deep)) {
		t.Error("held at depth 100")
	}
}

// A failure keeps Memos' own inside it, so that a refusal and a wait reach
// the client, and says whether anything was written.
func TestFailureKeepsMemosError(t *testing.T) {
	refused := &memos.Error{Status: 401, Msg: "401 Unauthorized", Refused: true}
	busy := &memos.Error{Status: 429, Msg: "429 Too Many Requests", Wait: 42 * time.Second}
	for _, tc := range []struct {
		name string
		err  error
		want *memos.Error
		text string
	}{
		{"not done", NotDone(refused, "reading memos/a"), refused, "401 Unauthorized; reading memos/a; nothing was written: trying again is safe"},
		{"may be done", MayBeDone(busy, "memos/a"), busy, "429 Too Many Requests; it may have been written: read memos/a before trying again"},
		{"an empty answer", MayBeDone(nil, "memos/a"), nil, "Memos answered without confirming the write; it may have been written: read memos/a before trying again"},
		{"refused by the plan", Refuse("attachments/x belongs to memos/b"), nil, "attachments/x belongs to memos/b; nothing was written: trying again is safe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := memos.AsError(tc.err)
			if e != tc.want || tc.err.Error() != tc.text {
				t.Errorf("%q, Memos' error %v", tc.err, e)
			}
			if Unclear(tc.err) {
				t.Error("a settled failure reads as unclear")
			}
		})
	}
	if !Unclear(&memos.Error{Msg: "timeout", Unsure: true}) || Unclear(errors.New("x")) {
		t.Error("Unclear")
	}
}

// Settle reads back once and tells what Memos holds.
func TestSettle(t *testing.T) {
	cause := &memos.Error{Msg: "Memos did not answer in time", Unsure: true}
	for _, tc := range []struct {
		name  string
		state State
		err   error
		text  string // "" for applied
	}{
		{"applied", Applied, nil, ""},
		{"not applied", Unapplied, nil, "Memos did not answer in time; reading memos/a back shows the write was not applied; nothing was written: trying again is safe"},
		{"someone else's change", Unknown, nil, "Memos did not answer in time; it may have been written: read memos/a before trying again"},
		{"no read-back", Applied, errors.New("reset"), "Memos did not answer in time; it may have been written: read memos/a before trying again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			err := Settle(context.Background(), cause, "memos/a", func(context.Context) (State, error) { n++; return tc.state, tc.err })
			if n != 1 || tc.text == "" && err != nil || tc.text != "" && (err == nil || err.Error() != tc.text) {
				t.Errorf("%d read-backs, %v", n, err)
			}
		})
	}
}

// Instant reads what time.Parse reads as RFC 3339, as the same instant,
// and refuses what it refuses.
func TestInstant(t *testing.T) {
	for _, s := range []string{
		"2026-03-01T10:00:00Z", "2026-03-01T11:00:00.000+01:00", "2026-03-01T10:00:00.123456789Z", "2026-03-01t10:00:00z", "2026-03-01T10:00:00+24:00", "2026-03-01T10:00:00+01:60", "2026-03-01T10:00:00+25:00", "2026-03-01T10:00:00+01:61",
		"2024-02-29T23:59:59-12:30", "2026-02-29T10:00:00Z", "2026-13-01T10:00:00Z", "2026-03-01T24:00:00Z", "2026-03-01T10:00:00",
		"2026-03-01T10:00:00.Z", "2026-03-01T10:00:00+0100", "2026-03-01 10:00:00Z", "x", "", "2026-03-01T10:00:00.1234567891Z",
		"2026-03-01T10:00:60Z", "0000-01-01T00:00:00Z", "2026-03-01T10:00:00+24:00",
	} {
		want, err := time.Parse(time.RFC3339Nano, s)
		got, ok := Instant(s)
		if ok != (err == nil) || ok && !got.Equal(want) {
			t.Errorf("Instant(%q) = %v, %t; time.Parse: %v, %v", s, got, ok, want, err)
		}
	}
}

func FuzzInstant(f *testing.F) {
	f.Add("2026-03-01T11:00:00.000+01:00")
	f.Fuzz(func(t *testing.T, s string) {
		want, err := time.Parse(time.RFC3339Nano, s)
		got, ok := Instant(s)
		if ok && (err != nil || !got.Equal(want)) {
			t.Errorf("Instant(%q) = %v; time.Parse: %v, %v", s, got, want, err)
		}
	})
}

// Ids a create gives are checked as Memos checks them.
func TestCheckNewID(t *testing.T) {
	for id, ok := range map[string]bool{
		"abc": true, "a": true, "A-1-b": true, strings.Repeat("x", 36): true,
		"": false, strings.Repeat("x", 37): false, "-a": false, "a-": false, "a_b": false, "a.b": false, "é": false, "a b": false,
	} {
		if got := CheckNewID(id) == ""; got != ok {
			t.Errorf("CheckNewID(%q) = %q", id, CheckNewID(id))
		}
	}
}
