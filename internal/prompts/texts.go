package prompts

import (
	"strconv"
	"strings"
)

// toolbox is the tools the prompt texts may name, each "" when the caller
// is not served it: the hand-written search and tag tools where served,
// else the generated list tool with a filter.
type toolbox struct {
	search, list, tags, create, get string
}

func toolboxOf(served func(tool string) bool) toolbox {
	pick := func(name string) string {
		if served(name) {
			return name
		}
		return ""
	}
	return toolbox{search: pick("memo_search"), list: pick("memo_list_memos"), tags: pick("tag_list"),
		create: pick("memo_create_memo"), get: pick("memo_get_memo")}
}

// canSearch reports whether the caller has a tool to find memos with.
func (tb toolbox) canSearch() bool { return tb.search != "" || tb.list != "" }

// searchFor says how to find memos: with the search tool, in words it
// understands, or else with the list tool and a filter of Memos' CEL.
func (tb toolbox) searchFor(what, filter string) string {
	if tb.search != "" {
		return "Call " + tb.search + " for " + what + "."
	}
	return "Call " + tb.list + " with a filter in Memos' filter language for " + what + ", for example " + filter + "."
}

// reading says how to read a whole memo.
func (tb toolbox) reading() string {
	if tb.get != "" {
		return "\n\nRead a whole memo with " + tb.get + " (or as the resource memo://memos/{id}) when the lines a search shows are not enough."
	}
	return "\n\nRead a whole memo as the resource memo://memos/{id} when the lines a search shows are not enough."
}

var visibilities = []string{"PRIVATE", "PROTECTED", "PUBLIC"}

// catalog is every prompt, in the order prompts/list shows them.
var catalog = []prompt{
	{
		name: "capture", title: "Capture a memo",
		description: "Turn a piece of text into a well-tagged memo in Memos.",
		args: []argument{
			{name: "content", description: "The text to save.", required: true},
			{name: "tags", description: "Tags to put on it, separated by spaces or commas (optional).", tags: true},
			{name: "visibility", description: "PRIVATE (the default), PROTECTED or PUBLIC.", values: visibilities},
		},
		needs: func(tb toolbox) bool { return tb.create != "" },
		render: func(a args, tb toolbox) string {
			var b strings.Builder
			b.WriteString("Save the text below as a new memo in Memos.\n\n")
			b.WriteString("- Keep my words; fix only obvious typos. Add a short first line as a title only if the text is long.\n")
			if tags := tagList(a["tags"]); tags != "" {
				b.WriteString("- Tag it " + tags + ".")
				if tb.tags != "" {
					b.WriteString(" Add at most two more only if they clearly fit, choosing among the tags I already use (" + tb.tags + " lists them).")
				}
				b.WriteString("\n")
			} else if tb.tags != "" {
				b.WriteString("- Call " + tb.tags + " and pick one to three of my existing tags that fit; make up a new tag only when none does.\n")
			} else {
				b.WriteString("- Give it one to three short tags that fit.\n")
			}
			b.WriteString("- Tags go at the end of the content as #tag (#parent/child for a tag under another).\n")
			visibility := a["visibility"]
			if visibility == "" {
				visibility = "PRIVATE"
			}
			b.WriteString("- Create it with " + tb.create + ", visibility " + visibility + ".\n")
			b.WriteString("- Then answer with one line: the new memo's name and its tags.\n\n")
			b.WriteString("Text to save:\n\n")
			b.WriteString(a["content"])
			return b.String()
		},
	},
	{
		name: "daily_review", title: "Review recent memos",
		description: "What I wrote in the last day (or days), and what I left open.",
		args: []argument{
			{name: "days", description: "How many days back to look, 1 (the default) to 366.", check: checkDays},
		},
		needs: toolbox.canSearch,
		render: func(a args, tb toolbox) string {
			days := a["days"]
			if days == "" {
				days = "1"
			}
			n, _ := strconv.Atoi(days)
			period := "the last day"
			if n > 1 {
				period = "the last " + days + " days"
			}
			var b strings.Builder
			b.WriteString("Review what I wrote in Memos in " + period + ". Do not change any memo.\n\n")
			b.WriteString("1. " + tb.searchFor("my own memos created in "+period+", newest first", `creator == "users/<my username>" && created_ts >= now - duration("`+strconv.Itoa(24*n)+`h")`) +
				" Go on to the next page while there is one, up to 100 memos.\n")
			b.WriteString("2. Summarize them in a few bullet points grouped by tag, naming each memo (memos/{id}).\n")
			b.WriteString("3. List what is still open: unchecked tasks (- [ ]) and questions I left, each with its memo.\n")
			b.WriteString("4. Suggest at most three next steps.")
			b.WriteString(tb.reading())
			return b.String()
		},
	},
	{
		name: "on_this_day", title: "On this day",
		description: "What I wrote on this day of the year in earlier years.",
		args: []argument{
			{name: "date", description: "The day, as YYYY-MM-DD; today by default.", check: checkDate},
			{name: "timezone", description: "IANA time zone the day is in, such as Europe/Berlin; UTC by default.", check: checkTimezone},
		},
		needs: toolbox.canSearch,
		render: func(a args, tb toolbox) string {
			day, tz := a["date"], a["timezone"]
			if tz == "" {
				tz = "UTC"
			}
			when := "today's date"
			if day != "" {
				when = day
			}
			var b strings.Builder
			b.WriteString("Show me what I wrote on this day of the year in earlier years: the month and day of " + when + " in the time zone " + tz + ".\n\n")
			b.WriteString("1. " + tb.searchFor("my memos created on that month and day in each earlier year, in "+tz,
				`created_ts >= timestamp("2025-03-14T00:00:00Z") && created_ts < timestamp("2025-03-15T00:00:00Z") for one year's day (one call per year, up to ten years back)`) + "\n")
			b.WriteString("2. For each year that has memos, newest year first, give the year and one or two lines per memo, naming it (memos/{id}).\n")
			b.WriteString("3. If no year has any, say so in one line.")
			b.WriteString(tb.reading())
			return b.String()
		},
	},
	{
		name: "find", title: "Find something",
		description: "Help me find something I wrote in Memos.",
		args: []argument{
			{name: "what", description: "What to look for, in your own words (\"the boiler repair last March\").", required: true},
		},
		needs: toolbox.canSearch,
		render: func(a args, tb toolbox) string {
			var b strings.Builder
			b.WriteString("Help me find this in my memos: " + a["what"] + "\n\n")
			b.WriteString("1. Pick out the distinctive words, tags, people and dates in my request.")
			if tb.tags != "" {
				b.WriteString(" Call " + tb.tags + " to see which of my tags match.")
			}
			b.WriteString("\n2. " + tb.searchFor("them; try two or three variations (a synonym, a tag, a date range) before giving up",
				`content.contains("boiler") && created_ts >= timestamp("2025-03-01T00:00:00Z")`) + "\n")
			b.WriteString("3. Answer with the best matches first: each memo's name (memos/{id}), its date and the lines that match.\n")
			b.WriteString("4. If nothing matches, say what you tried.")
			b.WriteString(tb.reading())
			return b.String()
		},
	},
}

// tagList writes a tags argument ("work, home #ideas") as "#work #home
// #ideas".
func tagList(s string) string {
	fields := strings.Fields(strings.ReplaceAll(s, ",", " "))
	for i, f := range fields {
		fields[i] = "#" + strings.TrimLeft(f, "#")
	}
	return strings.Join(fields, " ")
}
