package memos

import (
	"strings"
	"testing"
)

func TestVersionMismatch(t *testing.T) {
	for instance, warns := range map[string]bool{
		"v0.30.0":    false,
		"0.30.0":     false,
		"dev":        false,
		"":           false,
		"0.31.0":     false,
		"0.31.1":     false, // a patch release changes no route
		"0.32.0":     true,
		"v0.29.1":    true,
		"0.30.7":     false, // a patch release changes no route
		"v0.30":      false,
		"0.30.1-rc1": false,
		"0.3.0":      true,
		"nightly":    false, // names no release: as dev
		"0.x.1":      false,
	} {
		if got := mismatch(instance, testReleases); (got != "") != warns {
			t.Errorf("mismatch(%q) = %q", instance, got)
		}
	}
	if w := mismatch("0.32.0", testReleases); !strings.Contains(w, "runs Memos 0.32.0 but the tools were built for 0.30.0 and 0.31.0") {
		t.Errorf("mismatch text %q", w)
	}
}

func TestMinor(t *testing.T) {
	for in, want := range map[string]string{
		"0.31.0": "0.31", "v0.31.1": "0.31", "0.31": "0.31", "1.2.3-rc1": "1.2", "0.31-rc1": "0.31",
		"dev": "", "": "", "0": "", "v": "", ".31": "", "0.": "", "0.a": "", "12345678.1": "",
	} {
		if got := minor(in); got != want {
			t.Errorf("minor(%q) = %q, want %q", in, got, want)
		}
	}
}

// The note goes only on a 404 of a route that differs between the
// releases: a deleted memo's 404 is the memo's.
func TestMismatchNoteOnDifferingRoutes(t *testing.T) {
	var v versionCache
	v.note("0.32.0", 1, true, testReleases)
	differs := func(route string) bool { return route == "/api/v1/users/{user}/views" }
	if n := v.mismatchNote(testReleases, "/api/v1/memos/{memo}", differs); n != "" {
		t.Errorf("a shared route got %q", n)
	}
	if n := v.mismatchNote(testReleases, "/api/v1/users/{user}/views", differs); !strings.Contains(n, "the instance runs Memos v0.32.0, but these tools were built for Memos v0.31.0") {
		t.Errorf("a differing route got %q", n)
	}
	v.note("0.31.2", 1, true, testReleases)
	if n := v.mismatchNote(testReleases, "/api/v1/users/{user}/views", differs); n != "" {
		t.Errorf("a patch release got %q", n)
	}
}
