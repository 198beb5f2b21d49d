// Package notebook is the notebook of `make bench`'s row 9, "what a task
// costs the model", and of the end-to-end test that holds the gateway to
// that row's goal: its memos, its questions with the facts their answers
// need, writing it into a Memos, and answering each question as a model
// would while counting calls and bytes (questions.go). The report and the
// test measure the same notebook with the same questions.
//
// The notebook: Memos memos over three years, hierarchical tags (29, journal
// the most used), tasks, pinned and archived memos, a Berlin time zone with
// memos near its midnights and its change to summer time. Every fact a
// question needs sits past its memo's first line, among lines of ordinary
// text, as people's notes keep them.
package notebook

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// Memos is how many memos the notebook holds.
const Memos = 400

// planted are the memos that hold the facts: a title, the lines that hold
// them, the tag, and when written.
var planted = []struct {
	title, lines, tag, created string
	comment                    string // a comment on the memo, written after it
}{
	{"Falcon office visit", "Parking is behind the building, entrance B.\nThe gate code is 4711, the door code 0815.", "work/falcon", "2026-10-14T08:05:00Z", ""},
	{"Falcon review", "- [x] share the draft\n- [ ] send the Falcon report to Ann", "work/falcon", "2026-11-02T15:20:00Z", ""},
	{"Falcon planning", "We agreed on the scope.\n- [ ] book the review room\n- [ ] ask Li about the budget", "work/falcon/planning", "2026-11-10T09:45:00Z", ""},
	{"Boiler", "The engineer came at 10.\nServiced, pressure set to 1.5 bar, next service in March 2027.", "home/boiler", "2026-09-21T10:30:00Z",
		"The plumber rang back about the boiler: the knocking is air in the pipes, bleed the radiators."},
	{"Boiler", "Serviced by the old company, pressure 1.2 bar.", "home/boiler", "2024-09-03T11:00:00Z", ""},
	// Monday 30 November 2026 in Berlin: from 00:13 (Sunday in UTC) to
	// 22:30; the third is Tuesday there.
	{"Late night", "Fixed the printer driver at last.", "journal", "2026-11-29T23:13:22Z", ""},
	{"Dinner", "We cooked the lentil soup from Mum's recipe.", "family", "2026-11-30T21:30:00Z", ""},
	{"Early start", "Train to Hamburg at 6.", "journal", "2026-11-30T23:10:00Z", ""},
	// 29 March 2026, the day Berlin changes to summer time.
	{"Night shift", "The server move finished at half past midnight.", "work/ops", "2026-03-28T23:30:00Z", ""},
	{"Spring", "First asparagus of the year at the market.", "recipes", "2026-03-29T21:30:00Z", ""},
	{"Japan trip, day 3", "The train from Tokyo took 2h15.\nIn Kyoto we stayed at Ryokan Sakura, 180 euros a night.", "travel/japan", "2025-04-08T12:00:00Z", ""},
}

// The notebook's own memos: a title, lines of ordinary text (some about
// the boiler or Falcon, as a real notebook's), maybe tasks, and tags from a
// tree of 29 (journal the most used).
var (
	tags      = strings.Fields("journal journal work work/falcon work/meetings work/hiring work/ops home home/boiler home/garden home/kitchen health health/running travel travel/japan travel/italy books books/notes ideas family family/kids money money/taxes car learning learning/go learning/piano recipes music friends")
	titles    = strings.Fields("Notes Thoughts Meeting Plan Errands Idea Reading Call Weekend Review Shopping Log")
	sentences = []string{
		"We went through the list and agreed on most of it.", "The weather was grey all day, so I stayed in.",
		"I should look into this again next week.", "Talked it over with the team after lunch.",
		"The garden gate needs a new coat of paint.", "Read two chapters before bed.",
		"Booked the tickets, the confirmation is in the mail.", "Nothing urgent, but worth writing down.",
		"Ran 5 km along the river, slow but steady.", "Tried a new recipe, it needs more salt.",
		"The car goes in for its check on Thursday.", "Paid the invoice and filed the receipt.",
		"The boiler made a knocking noise again this morning.", "Falcon standup: nothing blocking, demo on Friday.",
		"Serviced the bike myself, new chain and brakes.", "Long call with the landlord about the windows.",
		"The kids want to go to the zoo at the weekend.", "Need to compare the two insurance offers.",
	}
	chores = []string{"- [ ] call the dentist", "- [x] renew the library card", "- [ ] water the plants", "- [x] pay the rent"}
)

// Note is a memo of the notebook: its content and creation time, and
// whether pinned or archived.
type Note struct {
	Content  string
	Created  time.Time
	Pinned   bool
	Archived bool
	Comment  string // a comment on it, if any
}

// lines returns n lines of ordinary text.
func lines(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(sentences[rng.IntN(len(sentences))] + "\n")
	}
	return b.String()
}

// Notes returns the notebook's memos, from a fixed seed.
func Notes() []Note {
	rng := rand.New(rand.NewPCG(29, 2026))
	first := time.Date(2023, 12, 1, 0, 0, 0, 0, time.UTC)
	span := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC).Sub(first)
	var notes []Note
	for i := range Memos - len(planted) {
		content := titles[rng.IntN(len(titles))] + " " + strconv.Itoa(i) + "\n" + lines(rng, 2+rng.IntN(10))
		if rng.IntN(4) == 0 {
			content += chores[rng.IntN(len(chores))] + "\n"
		}
		content += "#" + tags[rng.IntN(len(tags))]
		created := first.Add(time.Duration(rng.Int64N(int64(span)))).Truncate(time.Second)
		notes = append(notes, Note{Content: content, Created: created, Pinned: rng.IntN(30) == 0, Archived: rng.IntN(30) == 0})
	}
	for _, p := range planted {
		t, _ := time.Parse(time.RFC3339, p.created)
		content := p.title + "\n" + lines(rng, 2+rng.IntN(4)) + p.lines + "\n" + lines(rng, 1+rng.IntN(4)) + "#" + p.tag
		notes = append(notes, Note{Content: content, Created: t, Comment: p.comment})
	}
	return notes
}

// Seed writes the notebook into the Memos at memosURL as the user whose
// token is given, four memos at a time: each is created, then given its
// creation time (and pinned or archived) in an update, then its comment.
func Seed(ctx context.Context, memosURL, token string) error {
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	send := func(method, url, body string) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		status, answer, err := harness.Do(client, req)
		if err == nil && status != 200 {
			err = fmt.Errorf("HTTP %d: %.200s", status, answer)
		}
		return answer, err
	}
	notes := Notes()
	next := make(chan Note)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for n := range next {
				answer, err := send(http.MethodPost, memosURL+"/api/v1/memos", `{"content":`+strconv.Quote(n.Content)+`,"visibility":"PRIVATE"}`)
				if err != nil {
					errs <- fmt.Errorf("create a memo: %w", err)
					return
				}
				at := n.Created.Format(time.RFC3339)
				mask, patch := "create_time,update_time", `{"createTime":"`+at+`","updateTime":"`+at+`"`
				if n.Pinned {
					mask, patch = mask+",pinned", patch+`,"pinned":true`
				}
				if n.Archived {
					mask, patch = mask+",state", patch+`,"state":"ARCHIVED"`
				}
				url := memosURL + "/api/v1/" + gjson.GetBytes(answer, "name").String() + "?updateMask=" + mask
				if _, err := send(http.MethodPatch, url, patch+"}"); err != nil {
					errs <- fmt.Errorf("set a memo's time: %w", err)
					return
				}
				if n.Comment == "" {
					continue
				}
				url = memosURL + "/api/v1/" + gjson.GetBytes(answer, "name").String() + "/comments"
				if _, err := send(http.MethodPost, url, `{"content":`+strconv.Quote(n.Comment)+`,"visibility":"PRIVATE"}`); err != nil {
					errs <- fmt.Errorf("comment on a memo: %w", err)
					return
				}
			}
			errs <- nil
		}()
	}
	var err error
	for i := 0; i < len(notes) && err == nil; i++ {
		select {
		case next <- notes[i]:
		case err = <-errs:
		}
	}
	close(next)
	for range 4 {
		if e := <-errs; err == nil {
			err = e
		}
	}
	return err
}
