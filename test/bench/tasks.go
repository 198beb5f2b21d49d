package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// Row 9, what a task costs the model: over a notebook the bench writes
// (notebookMemos memos over three years, hierarchical tags, tasks, pinned
// and archived memos, a Berlin time zone with memos near its midnights and
// its change to summer time), each question is answered as a model would:
// one find call, then reading the hits one by one (memo_get_memo, as a host
// that allows tools alone does) until every fact the answer needs has been
// seen. The gateway's find call is its finding tool; the built-in's is the
// best single filtered memo_list_memos call a model could write. Every fact
// sits past its memo's first line. Both find calls ask for 10 memos (the
// gateway's default) and the same words. Bytes are whole answers, as sent.

const (
	notebookMemos = 400
	maxReads      = 20 // reads after the find call, per question
)

// task is one question: the facts its answer needs, and the find call of
// each server (a tool and its arguments as JSON).
type task struct {
	question         string
	facts            []string
	gateway, builtin string
	apart            bool // reported apart: the built-in has no tool for it
}

// cost is what answering took: calls, bytes read, whether the first answer
// held every fact, and whether every fact was seen at all.
type cost struct {
	calls, bytes int
	first, all   bool
}

type taskCost struct {
	task
	gw, builtin cost
}

// planted are the memos that hold the facts: a title, the lines that hold
// them (set among lines of ordinary text, as notes are), the tag, and when
// written.
var planted = []struct {
	title, lines, tag, created string
}{
	{"Falcon office visit", "Parking is behind the building, entrance B.\nThe gate code is 4711, the door code 0815.", "work/falcon", "2026-10-14T08:05:00Z"},
	{"Falcon review", "- [x] share the draft\n- [ ] send the Falcon report to Ann", "work/falcon", "2026-11-02T15:20:00Z"},
	{"Falcon planning", "We agreed on the scope.\n- [ ] book the review room\n- [ ] ask Li about the budget", "work/falcon/planning", "2026-11-10T09:45:00Z"},
	{"Boiler", "The engineer came at 10.\nServiced, pressure set to 1.5 bar, next service in March 2027.", "home/boiler", "2026-09-21T10:30:00Z"},
	{"Boiler", "Serviced by the old company, pressure 1.2 bar.", "home/boiler", "2024-09-03T11:00:00Z"},
	// Monday 30 November 2026 in Berlin: from 00:13 (Sunday in UTC) to
	// 22:30; the third is Tuesday there.
	{"Late night", "Fixed the printer driver at last.", "journal", "2026-11-29T23:13:22Z"},
	{"Dinner", "We cooked the lentil soup from Mum's recipe.", "family", "2026-11-30T21:30:00Z"},
	{"Early start", "Train to Hamburg at 6.", "journal", "2026-11-30T23:10:00Z"},
	// 29 March 2026, the day Berlin changes to summer time.
	{"Night shift", "The server move finished at half past midnight.", "work/ops", "2026-03-28T23:30:00Z"},
	{"Spring", "First asparagus of the year at the market.", "recipes", "2026-03-29T21:30:00Z"},
	{"Japan trip, day 3", "The train from Tokyo took 2h15.\nIn Kyoto we stayed at Ryokan Sakura, 180 euros a night.", "travel/japan", "2025-04-08T12:00:00Z"},
}

var tasks = []task{
	{question: "the Falcon office's gate and door codes", facts: []string{"4711", "0815"},
		gateway: `{"name":"memo_search","arguments":{"text":"gate code"}}`,
		builtin: `{"name":"memo_list_memos","arguments":{"pageSize":10,"filter":"content.contains(\"gate code\")"}}`},
	{question: "my open tasks for Falcon (tag work/falcon and its children)", facts: []string{"send the Falcon report to Ann", "book the review room", "ask Li about the budget"},
		gateway: `{"name":"memo_search","arguments":{"tags":["work/falcon"],"openTasks":true}}`,
		builtin: `{"name":"memo_list_memos","arguments":{"pageSize":10,"filter":"(tags.exists(t, t == \"work/falcon\") || tags.exists(t, t.startsWith(\"work/falcon/\"))) && has_incomplete_tasks"}}`},
	{question: "the boiler's pressure and next service", facts: []string{"1.5 bar", "March 2027"},
		gateway: `{"name":"memo_search","arguments":{"text":"boiler pressure"}}`,
		builtin: `{"name":"memo_list_memos","arguments":{"pageSize":10,"filter":"content.contains(\"boiler\") && content.contains(\"pressure\")"}}`},
	{question: "what I did on Monday 30 November 2026 (Berlin)", facts: []string{"printer driver", "lentil soup"},
		gateway: `{"name":"memo_search","arguments":{"on":"2026-11-30","timezone":"Europe/Berlin"}}`,
		builtin: `{"name":"memo_list_memos","arguments":{"pageSize":10,"filter":"created_ts >= timestamp(\"2026-11-29T23:00:00Z\") && created_ts < timestamp(\"2026-11-30T23:00:00Z\")"}}`},
	{question: "what I noted on 29 March 2026 (Berlin, the change to summer time)", facts: []string{"half past midnight", "asparagus"},
		gateway: `{"name":"memo_search","arguments":{"on":"2026-03-29","timezone":"Europe/Berlin"}}`,
		builtin: `{"name":"memo_list_memos","arguments":{"pageSize":10,"filter":"created_ts >= timestamp(\"2026-03-28T23:00:00Z\") && created_ts < timestamp(\"2026-03-29T22:00:00Z\")"}}`},
	{question: "where we stayed in Kyoto, and the price", facts: []string{"Ryokan Sakura", "180 euros"},
		gateway: `{"name":"memo_search","arguments":{"text":"Kyoto stayed"}}`,
		builtin: `{"name":"memo_list_memos","arguments":{"pageSize":10,"filter":"content.contains(\"Kyoto\") && content.contains(\"stayed\")"}}`},
	{question: "my most used tags", facts: []string{"journal"}, apart: true,
		gateway: `{"name":"tag_list","arguments":{}}`,
		builtin: `{"name":"memo_list_memos","arguments":{"pageSize":1000}}`},
}

// The notebook's own memos: a title, lines of ordinary text (some about
// the boiler or Falcon, as a real notebook's), maybe tasks, and tags from a
// tree of 29 (journal the most used).
var (
	notebookTags = strings.Fields("journal journal work work/falcon work/meetings work/hiring work/ops home home/boiler home/garden home/kitchen health health/running travel travel/japan travel/italy books books/notes ideas family family/kids money money/taxes car learning learning/go learning/piano recipes music friends")
	titles       = strings.Fields("Notes Thoughts Meeting Plan Errands Idea Reading Call Weekend Review Shopping Log")
	sentences    = []string{
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

// lines returns n lines of ordinary text.
func lines(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(sentences[rng.IntN(len(sentences))] + "\n")
	}
	return b.String()
}

// notebook returns the notebook's memos, from a fixed seed: content and
// creation time, and whether pinned or archived.
func notebook() []seedNote {
	rng := rand.New(rand.NewPCG(29, 2026))
	first := time.Date(2023, 12, 1, 0, 0, 0, 0, time.UTC)
	span := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC).Sub(first)
	var notes []seedNote
	for i := range notebookMemos - len(planted) {
		content := titles[rng.IntN(len(titles))] + " " + strconv.Itoa(i) + "\n" + lines(rng, 2+rng.IntN(10))
		if rng.IntN(4) == 0 {
			content += chores[rng.IntN(len(chores))] + "\n"
		}
		content += "#" + notebookTags[rng.IntN(len(notebookTags))]
		created := first.Add(time.Duration(rng.Int64N(int64(span)))).Truncate(time.Second)
		notes = append(notes, seedNote{content: content, created: created, pinned: rng.IntN(30) == 0, archived: rng.IntN(30) == 0})
	}
	for _, p := range planted {
		t, _ := time.Parse(time.RFC3339, p.created)
		content := p.title + "\n" + lines(rng, 2+rng.IntN(4)) + p.lines + "\n" + lines(rng, 1+rng.IntN(4)) + "#" + p.tag
		notes = append(notes, seedNote{content: content, created: t})
	}
	return notes
}

type seedNote struct {
	content  string
	created  time.Time
	pinned   bool
	archived bool
}

// seedNotebook writes the notebook into Memos, four at a time.
func (b *bench) seedNotebook(ctx context.Context) error {
	client := keepAlive(4)
	header := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + b.memos.Token}}
	notes := notebook()
	next := make(chan seedNote)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for n := range next {
				body := `{"content":` + strconv.Quote(n.content) + `,"visibility":"PRIVATE"}`
				status, answer, err := post(ctx, client, b.memos.URL+"/api/v1/memos", body, header)
				if err != nil || status != 200 {
					errs <- fmt.Errorf("create memo: %d %v %.200s", status, err, answer)
					return
				}
				at := n.created.Format(time.RFC3339)
				mask, patch := "create_time,update_time", `{"createTime":"`+at+`","updateTime":"`+at+`"`
				if n.pinned {
					mask, patch = mask+",pinned", patch+`,"pinned":true`
				}
				if n.archived {
					mask, patch = mask+",state", patch+`,"state":"ARCHIVED"`
				}
				url := b.memos.URL + "/api/v1/" + gjson.GetBytes(answer, "name").String() + "?updateMask=" + mask
				req, _ := http.NewRequestWithContext(ctx, http.MethodPatch, url, strings.NewReader(patch+"}"))
				req.Header = header.Clone()
				if status, answer, err := do(client, req); err != nil || status != 200 {
					errs <- fmt.Errorf("set the memo's time: %d %v %.200s", status, err, answer)
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

// taskRow measures row 9 after the rows that time requests, before row 8's
// memos (so that listing every memo, for the tag question, reads the
// notebook), on a notebook of its own: it seeds the notebook, then asks
// each question of the gateway under workerd alone and of Memos' built-in
// /mcp.
func (b *bench) taskRow(ctx context.Context, r *results, compat string) (err error) {
	progress("row 9: seeding a notebook of %d memos, then asking %d questions of the gateway and of Memos' built-in /mcp", notebookMemos, len(tasks))
	if err := b.seedNotebook(ctx); err != nil {
		return err
	}
	gateway, err := b.gateway.workerd(b.root, compat, b.vars)
	if err != nil {
		return err
	}
	defer gateway.Stop()
	if _, _, err := gateway.waitReady(ctx, listBody, mcpHeaders(b.memos.Token)); err != nil {
		return err
	}
	r.tasks, err = b.answer(ctx, gateway.URL+"/mcp")
	return err
}

// answer asks each question of the gateway at gwURL and of Memos' built-in
// /mcp.
func (b *bench) answer(ctx context.Context, gwURL string) ([]taskCost, error) {
	var out []taskCost
	for _, t := range tasks {
		gw, err := b.solve(ctx, gwURL, t.gateway, t.facts)
		if err != nil {
			return nil, fmt.Errorf("the gateway, %s: %w", t.question, err)
		}
		builtin, err := b.solve(ctx, b.memos.URL+"/mcp", t.builtin, t.facts)
		if err != nil {
			return nil, fmt.Errorf("Memos' built-in /mcp, %s: %w", t.question, err)
		}
		out = append(out, taskCost{t, gw, builtin})
	}
	return out, nil
}

// solve makes the find call, then reads its hits in order until every fact
// has been seen in some answer.
func (b *bench) solve(ctx context.Context, url, find string, facts []string) (cost, error) {
	client, header := keepAlive(1), mcpHeaders(b.memos.Token)
	var c cost
	var seen []byte
	ask := func(params string) ([]byte, error) {
		status, body, err := post(ctx, client, url, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":`+params+`}`, header)
		if err == nil && (status != 200 || gjson.GetBytes(body, "result.isError").Bool() || !gjson.GetBytes(body, "result").Exists()) {
			err = fmt.Errorf("HTTP %d: %.300s", status, body)
		}
		c.calls++
		c.bytes += len(body)
		seen = append(seen, body...)
		return body, err
	}
	holds := func() bool {
		for _, f := range facts {
			if !strings.Contains(string(seen), f) {
				return false
			}
		}
		return true
	}
	body, err := ask(find)
	if err != nil {
		return c, err
	}
	c.first = holds()
	hits := gjson.GetBytes(body, "result.structuredContent.memos.#.name").Array()
	for i := 0; !holds() && i < len(hits) && i < maxReads; i++ {
		if _, err := ask(`{"name":"memo_get_memo","arguments":{"memo":` + strconv.Quote(hits[i].String()) + `}}`); err != nil {
			return c, err
		}
	}
	c.all = holds()
	return c, nil
}

// taskTotals sums the find-then-read questions (the tag question apart):
// both servers' costs, whether every first answer of the gateway held its
// facts, and whether it never needed more calls than the built-in.
func (r *results) taskTotals() (gw, builtin cost, first, fewer bool) {
	first, fewer = true, true
	for _, tc := range r.tasks {
		if tc.apart {
			continue
		}
		gw.calls, gw.bytes = gw.calls+tc.gw.calls, gw.bytes+tc.gw.bytes
		builtin.calls, builtin.bytes = builtin.calls+tc.builtin.calls, builtin.bytes+tc.builtin.bytes
		first = first && tc.gw.first
		fewer = fewer && tc.gw.calls <= tc.builtin.calls
	}
	return gw, builtin, first, fewer
}

// taskRows is the table of row 9, with the totals of the find-then-read
// questions and the tag question apart.
func (r *results) taskRows() [][]string {
	t := [][]string{{"question", "memos-mcp-edge: calls, bytes", "Memos' built-in /mcp: calls, bytes", "calls", "bytes"}}
	show := func(c cost) string {
		s := fmt.Sprintf("%d, %s", c.calls, kb(int64(c.bytes)))
		switch {
		case c.first:
			s += " (all facts in the first answer)"
		case !c.all:
			s += " (facts missing)"
		}
		return s
	}
	vs := func(a, b cost) []string {
		return []string{ratio(float64(a.calls), float64(b.calls)), ratio(float64(a.bytes), float64(b.bytes))}
	}
	for _, tc := range r.tasks {
		t = append(t, append([]string{tc.question, show(tc.gw), show(tc.builtin)}, vs(tc.gw, tc.builtin)...))
	}
	gw, builtin, first, _ := r.taskTotals()
	total := "find-then-read questions together"
	if first {
		total += " (every first answer holds its facts)"
	}
	return append(t, append([]string{total, fmt.Sprintf("%d, %s", gw.calls, kb(int64(gw.bytes))),
		fmt.Sprintf("%d, %s", builtin.calls, kb(int64(builtin.bytes)))}, vs(gw, builtin)...))
}

// taskGoal is issue 29's acceptance: on the find-then-read questions, every
// first answer holds its facts, with no more calls than the built-in and at
// most 25% of its bytes in total.
func (r *results) taskGoal() goal {
	gw, builtin, first, fewer := r.taskTotals()
	return goal{what: "find-then-read questions: facts in the first answer, calls ≤ the built-in's, bytes ≤ 25% of its",
		measured: len(r.tasks) > 0, met: len(r.tasks) > 0 && first && fewer && 4*gw.bytes <= builtin.bytes,
		figure: fmt.Sprintf("first answers hold the facts: %t; calls never more: %t; %s vs %s = %s", first, fewer,
			kb(int64(gw.bytes)), kb(int64(builtin.bytes)), ratio(float64(gw.bytes), float64(builtin.bytes)))}
}
