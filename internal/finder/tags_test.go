package finder

import (
	"context"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Tags reads the caller's statistics, looks at the first max tags of them
// only, and orders what it kept by use, then by name.
func TestTags(t *testing.T) {
	const stats = `{"tagCount":{"b":2,"a":2,"z":9,"c":1,"y":9},"memoCreatedTimestamps":["2024-01-01T00:00:00Z"]}`
	for _, tc := range []struct {
		name  string
		max   int
		stats string
		want  []Tag
		fails string
	}{
		{name: "every tag", max: math.MaxInt, stats: stats, want: []Tag{{"y", 9}, {"z", 9}, {"a", 2}, {"b", 2}, {"c", 1}}},
		{name: "the first three looked at", max: 3, stats: stats, want: []Tag{{"z", 9}, {"a", 2}, {"b", 2}}},
		{name: "one", max: 1, stats: stats, want: []Tag{{"b", 2}}},
		{name: "no tags", max: 10, stats: `{"memoCreatedTimestamps":[]}`},
		{name: "statistics refused", max: 10, fails: "404 Not Found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newFake()
			delete(m.answers, "/api/v1/users/ann:getStats")
			if tc.stats != "" {
				m.answers["/api/v1/users/ann:getStats"] = tc.stats
			}
			got, err := Tags(context.Background(), m, tc.max)
			if tc.fails != "" {
				if err == nil || err.Error() != tc.fails+": not found" {
					t.Errorf("error %v, want %q", err, tc.fails)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tags (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"/api/v1/auth/me", "/api/v1/users/ann:getStats"}, m.asked); diff != "" {
				t.Errorf("asked (-want +got):\n%s", diff)
			}
		})
	}
}
