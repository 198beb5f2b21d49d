package memos

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestPath(t *testing.T) {
	for _, c := range []struct {
		name, route string
		ids         []string
		want        string
	}{
		{"one id", RouteMemo, []string{"abc"}, "/api/v1/memos/abc"},
		{"id before a suffix", RouteMemoComments, []string{"abc"}, "/api/v1/memos/abc/comments"},
		{"escaped", RouteMemo, []string{"a/b?c"}, "/api/v1/memos/a%2Fb%3Fc"},
		{"in a segment", RouteUserStats, []string{"alice"}, "/api/v1/users/alice:getStats"},
		{"two ids", RoutePersonalAccessToken, []string{"alice", "7"}, "/api/v1/users/alice/personalAccessTokens/7"},
		{"no placeholder", RouteMemos, nil, "/api/v1/memos"},
		{"an id short", RoutePersonalAccessToken, []string{"alice"}, "/api/v1/users/alice/personalAccessTokens/{personalAccessToken}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Path(c.route, c.ids...); got != c.want {
				t.Errorf("Path(%q, %q) = %q, want %q", c.route, c.ids, got, c.want)
			}
		})
	}
}

func TestNamePath(t *testing.T) {
	for _, c := range []struct {
		name, route, object, want string
		ok                        bool
	}{
		{"token", RoutePersonalAccessToken, "users/alice/personalAccessTokens/7", "/api/v1/users/alice/personalAccessTokens/7", true},
		{"memo", RouteMemo, "memos/abc", "/api/v1/memos/abc", true},
		{"another kind", RouteMemo, "attachments/abc", "", false},
		{"too long", RouteMemo, "memos/abc/comments", "", false},
		{"empty id", RouteMemo, "memos/", "", false},
		{"climbing", RoutePersonalAccessToken, "users/../personalAccessTokens/7", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := NamePath(c.route, c.object)
			if ok != c.ok || (ok && got != c.want) {
				t.Errorf("NamePath(%q, %q) = %q, %t; want %q, %t", c.route, c.object, got, ok, c.want, c.ok)
			}
		})
	}
}

// No code outside the generated routes spells a route of Memos' API: the
// routes hand-written code calls come from the releases' documents
// (routes_gen.go, and routes_gen.mjs for the Worker's entry module), so
// that a release that moves one fails generation.
// Comments may name routes. Tests and the fakes of test-support packages
// (memostest) spell theirs on purpose: a fake built from the same
// constants could not catch a wrong one.
// scriptString matches a string literal of a script: quoted or a template.
var scriptString = regexp.MustCompile("\"(?:[^\"\\\\\n]|\\\\.)*\"|'(?:[^'\\\\\n]|\\\\.)*'|`[^`]*`")

func TestNoRouteLiterals(t *testing.T) {
	root := strings.TrimSuffix(APIRoot, "/") // "/api/v1", with or without what follows
	files, scripts := []string{"../../main.go"}, []string{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && strings.HasSuffix(d.Name(), "test") && path != "..":
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && !strings.HasSuffix(path, "_gen.go"):
			files = append(files, path)
		case !d.IsDir() && strings.HasSuffix(path, ".mjs") && !strings.HasSuffix(path, "_gen.mjs") && !strings.Contains(path, "testdata"):
			scripts = append(scripts, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.Contains(lit.Value, root) {
				t.Errorf("%s: a route in a literal, %s: use a memos.Route constant (spec/curation.json's routes) with memos.Path", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
	}
	for _, path := range scripts {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, lit := range scriptString.FindAllString(string(b), -1) {
			if strings.Contains(lit, root) {
				t.Errorf("%s: a route in a literal, %s: use routes_gen.mjs's routes", path, lit)
			}
		}
	}
	if len(files) < 50 || len(scripts) < 3 {
		t.Errorf("only %d Go files and %d scripts scanned: the walk missed the packages", len(files), len(scripts))
	}
}
