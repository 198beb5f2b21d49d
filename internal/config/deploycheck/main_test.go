package main

import (
	"os"
	"strings"
	"testing"
)

// The shipped wrangler.toml deploys a Worker that refuses everything, and
// the check says why; set as the README's deploy steps say, it is quiet.
func TestCheck(t *testing.T) {
	shipped, err := os.Open("../../../wrangler.toml")
	if err != nil {
		t.Fatal(err)
	}
	defer shipped.Close()
	for _, tc := range []struct {
		name string
		vars map[string]string
		want []string
	}{
		{"shipped", vars(shipped), []string{"MEMOS_URL is not set", "ALLOWED_HOSTS lists only loopback names"}},
		{"set for a deploy", map[string]string{"MEMOS_URL": "https://memos.example.com", "ALLOWED_HOSTS": "mcp.example.com"}, nil},
		{"any host", map[string]string{"MEMOS_URL": "https://memos.example.com"}, nil},
		{"a service binding", map[string]string{"MEMOS_SERVICE": "MEMOS", "ALLOWED_HOSTS": "mcp.example.com,localhost"}, nil},
		{"ALLOWED_HOSTS as a URL", map[string]string{"MEMOS_URL": "https://memos.example.com", "ALLOWED_HOSTS": "https://mcp.example.com/"},
			[]string{`ALLOWED_HOSTS entry "https://mcp.example.com/" is a URL: write the host name alone, mcp.example.com (/mcp answers 503)`}},
		{"plain http", map[string]string{"MEMOS_URL": "http://memos.example.com", "ALLOWED_HOSTS": "mcp.example.com"}, []string{"MEMOS_URL uses plain http"}},
		{"a TOOLS typo", map[string]string{"MEMOS_URL": "https://memos.example.com", "TOOLS": "memo_lst_memos"}, []string{`TOOLS entry "memo_lst_memos" matches no tool`}},
		{"READ_ONLY=yes", map[string]string{"MEMOS_URL": "https://memos.example.com", "READ_ONLY": "yes"}, []string{`READ_ONLY "yes"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := check(tc.vars)
			if len(got) != len(tc.want) {
				t.Fatalf("check(%v) = %q, want %d problems", tc.vars, got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %q, want one about %q", got[i], w)
				}
			}
		})
	}
}

func TestVars(t *testing.T) {
	got := vars(strings.NewReader("name = \"x\"\n[vars]\nA = \"a\\\"b\"\n# B = \"no\"\nC = 3\n[[services]]\nD = \"d\"\n"))
	if len(got) != 1 || got["A"] != `a"b` {
		t.Errorf("vars = %v, want only A", got)
	}
}
