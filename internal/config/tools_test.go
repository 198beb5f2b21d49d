package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadToolChoice(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    ToolChoice
		wantErr string
	}{
		{name: "unset", env: map[string]string{}, want: ToolChoice{}},
		{name: "read-only", env: map[string]string{"READ_ONLY": "true"}, want: ToolChoice{ReadOnly: true}},
		{name: "read-only off", env: map[string]string{"READ_ONLY": " false "}, want: ToolChoice{}},
		{name: "entries", env: map[string]string{"TOOLS": " memo_, -memo_delete_memo,,auth_get_current_user "},
			want: ToolChoice{Entries: []string{"memo_", "-memo_delete_memo", "auth_get_current_user"}}},
		{name: "read-only not a boolean", env: map[string]string{"READ_ONLY": "yes please"}, wantErr: `READ_ONLY "yes please" is not true or false`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LoadToolChoice(env(tc.env))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
