package main

import (
	"context"
	"fmt"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/notebook"
)

// Row 9, what a task costs the model: package notebook writes its notebook
// into this run's Memos and asks each of its questions of the gateway and
// of Memos' built-in /mcp, counting calls and bytes until every fact the
// answer needs has been seen (TestTaskCost holds the gateway to the goal).

const notebookMemos = notebook.Memos

// taskCost is what one question cost each server.
type taskCost = notebook.Answer

// taskRow measures row 9 after the rows that time requests, before row 8's
// memos (so that listing every memo, for the tag question, reads the
// notebook), on a notebook of its own: it seeds the notebook, then asks
// each question of the gateway under workerd alone and of Memos' built-in
// /mcp.
func (b *bench) taskRow(ctx context.Context, r *results, compat string) (err error) {
	progress("row 9: seeding a notebook of %d memos, then asking %d questions of the gateway and of Memos' built-in /mcp", notebookMemos, len(notebook.Questions))
	if err := notebook.Seed(ctx, b.memos.URL, b.memos.Token); err != nil {
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
	r.tasks, err = notebook.Ask(ctx, gateway.URL+"/mcp", b.memos.URL+"/mcp", b.memos.Token)
	return err
}

// taskRows is the table of row 9, with the totals of the find-then-read
// questions and the tag question apart.
func (r *results) taskRows() [][]string {
	t := [][]string{{"question", "memos-mcp-edge: calls, bytes", "Memos' built-in /mcp: calls, bytes", "calls", "bytes"}}
	show := func(c notebook.Cost) string {
		s := fmt.Sprintf("%d, %s", c.Calls, kb(int64(c.Bytes)))
		switch {
		case c.First:
			s += " (all facts in the first answer)"
		case !c.All:
			s += " (facts missing)"
		}
		return s
	}
	vs := func(a, b notebook.Cost) []string {
		return []string{ratio(float64(a.Calls), float64(b.Calls)), ratio(float64(a.Bytes), float64(b.Bytes))}
	}
	for _, tc := range r.tasks {
		t = append(t, append([]string{tc.Text, show(tc.Gateway), show(tc.Builtin)}, vs(tc.Gateway, tc.Builtin)...))
	}
	gw, builtin, first, _ := notebook.Totals(r.tasks)
	total := "find-then-read questions together"
	if first {
		total += " (every first answer holds its facts)"
	}
	return append(t, append([]string{total, fmt.Sprintf("%d, %s", gw.Calls, kb(int64(gw.Bytes))),
		fmt.Sprintf("%d, %s", builtin.Calls, kb(int64(builtin.Bytes)))}, vs(gw, builtin)...))
}

// taskGoal is issue 29's acceptance: on the find-then-read questions, every
// first answer holds its facts, with no more calls than the built-in and at
// most notebook.GoalShare of its bytes in total (notebook.Met).
func (r *results) taskGoal() goal {
	gw, builtin, first, fewer := notebook.Totals(r.tasks)
	return goal{what: fmt.Sprintf("find-then-read questions: facts in the first answer, calls ≤ the built-in's, bytes ≤ %.0f%% of its", 100*notebook.GoalShare),
		measured: len(r.tasks) > 0, met: notebook.Met(r.tasks),
		figure: fmt.Sprintf("first answers hold the facts: %t; calls never more: %t; %s vs %s = %s", first, fewer,
			kb(int64(gw.Bytes)), kb(int64(builtin.Bytes)), ratio(float64(gw.Bytes), float64(builtin.Bytes)))}
}
