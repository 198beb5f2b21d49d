package config

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func noBindings(string) bool { return false }

func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		binding string
		wantURL string
		wantErr string // substring; "" = valid
	}{
		{name: "https instance", env: map[string]string{"MEMOS_URL": "https://memos.example.com/"}, wantURL: "https://memos.example.com"},
		{name: "sub-path kept", env: map[string]string{"MEMOS_URL": "https://example.com/memos/"}, wantURL: "https://example.com/memos"},
		{name: "http loopback", env: map[string]string{"MEMOS_URL": "http://127.0.0.1:5230"}, wantURL: "http://127.0.0.1:5230"},
		{name: "http localhost", env: map[string]string{"MEMOS_URL": "http://localhost:5230"}, wantURL: "http://localhost:5230"},
		{name: "http ipv6 loopback", env: map[string]string{"MEMOS_URL": "http://[::1]:5230"}, wantURL: "http://[::1]:5230"},
		{name: "http elsewhere refused", env: map[string]string{"MEMOS_URL": "http://memos.example.com"}, wantErr: "plain http to a non-loopback host"},
		{name: "http elsewhere allowed for dev", env: map[string]string{"MEMOS_URL": "http://memos.lan", "MEMOS_ALLOW_HTTP": "true"}, wantURL: "http://memos.lan"},
		{name: "missing", env: map[string]string{}, wantErr: "MEMOS_URL is not set"},
		{name: "not a URL", env: map[string]string{"MEMOS_URL": "memos.example.com"}, wantErr: "not an absolute http(s) URL"},
		{name: "other scheme", env: map[string]string{"MEMOS_URL": "ftp://memos.example.com"}, wantErr: "not an absolute http(s) URL"},
		{name: "credentials", env: map[string]string{"MEMOS_URL": "https://u:p@memos.example.com"}, wantErr: "must not carry credentials"},
		{name: "query", env: map[string]string{"MEMOS_URL": "https://memos.example.com/?x=1"}, wantErr: "must not carry credentials, a query"},
		{name: "empty query", env: map[string]string{"MEMOS_URL": "https://memos.example.com?"}, wantErr: "must not carry credentials, a query"},
		{name: "empty fragment", env: map[string]string{"MEMOS_URL": "https://memos.example.com/#"}, wantErr: "must not carry credentials, a query"},
		{name: "binding without URL", env: map[string]string{"MEMOS_SERVICE": "MEMOS"}, binding: "MEMOS"},
		{name: "binding missing", env: map[string]string{"MEMOS_SERVICE": "MEMOS"}, wantErr: `no service binding of that name`},
		{name: "bad cap", env: map[string]string{"MEMOS_URL": "https://m.example.com", "MAX_BODY_BYTES": "-1"}, wantErr: `MAX_BODY_BYTES "-1" is not a positive integer`},
		{name: "bad timeout", env: map[string]string{"MEMOS_URL": "https://m.example.com", "UPSTREAM_TIMEOUT_MS": "soon"}, wantErr: `UPSTREAM_TIMEOUT_MS "soon"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(env(tc.env), func(name string) bool { return name == tc.binding })
			if tc.wantErr == "" && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				// The errors reach /healthz: never the instance's address.
				if u := tc.env["MEMOS_URL"]; u != "" && strings.Contains(err.Error(), u) {
					t.Errorf("error %q quotes MEMOS_URL", err)
				}
				return
			}
			got := ""
			if c.MemosURL != nil {
				got = c.MemosURL.String()
			}
			if got != tc.wantURL {
				t.Errorf("MemosURL = %q, want %q", got, tc.wantURL)
			}
		})
	}
}

func TestLoadDefaultsAndLists(t *testing.T) {
	c, err := Load(env(map[string]string{
		"MEMOS_URL":       "https://m.example.com",
		"ALLOWED_ORIGINS": " https://a.example.com, ,https://b.example.com ",
		"MAX_BODY_BYTES":  "2048",
		"TIMEZONE":        " Europe/Berlin ",
	}), noBindings)
	if err != nil {
		t.Fatal(err)
	}
	if c.Timezone != "Europe/Berlin" {
		t.Errorf("Timezone = %q", c.Timezone)
	}
	if got := strings.Join(c.AllowedOrigins, "|"); got != "https://a.example.com|https://b.example.com" {
		t.Errorf("AllowedOrigins = %q", got)
	}
	if c.MaxBodyBytes != 2048 || c.MaxRespBytes != DefaultMaxRespBytes || c.Timeout != DefaultTimeout {
		t.Errorf("caps = %d, %d, %v", c.MaxBodyBytes, c.MaxRespBytes, c.Timeout)
	}
}

// Every problem is reported at once, one per line, and valid settings are
// still applied.
func TestLoadReportsEveryProblem(t *testing.T) {
	c, err := Load(env(map[string]string{"MEMOS_URL": "http://memos.example.com", "MAX_RESPONSE_BYTES": "0", "UPSTREAM_TIMEOUT_MS": "500"}), noBindings)
	if err == nil {
		t.Fatal("no error")
	}
	if lines := strings.Split(err.Error(), "\n"); len(lines) != 2 {
		t.Errorf("want 2 problems, got %q", lines)
	}
	if c.Timeout != 500*time.Millisecond {
		t.Errorf("Timeout = %v, want the valid 500ms", c.Timeout)
	}
}

func TestLoadAccessServiceToken(t *testing.T) {
	const secret = "s3cr3t-value"
	for _, tc := range []struct {
		name           string
		id, secret     string
		wantID         string
		wantSecret     string
		wantErr        bool
		wantErrMention string
	}{
		{name: "unset"},
		{name: "both set", id: " abc.access ", secret: secret, wantID: "abc.access", wantSecret: secret},
		{name: "id only", id: "abc.access", wantErr: true, wantErrMention: "must be set together"},
		{name: "secret only", secret: secret, wantErr: true, wantErrMention: "must be set together"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(env(map[string]string{
				"MEMOS_URL":               "https://m.example.com",
				"CF_ACCESS_CLIENT_ID":     tc.id,
				"CF_ACCESS_CLIENT_SECRET": tc.secret,
			}), noBindings)
			if tc.wantErr != (err != nil) {
				t.Fatalf("error %v, want error: %v", err, tc.wantErr)
			}
			if err != nil {
				if !strings.Contains(err.Error(), tc.wantErrMention) {
					t.Errorf("error %q does not mention %q", err, tc.wantErrMention)
				}
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error %q quotes the secret", err)
				}
			}
			if c.AccessClientID != tc.wantID || c.AccessClientSecret != tc.wantSecret {
				t.Errorf("token = %q/%q, want %q/%q", c.AccessClientID, c.AccessClientSecret, tc.wantID, tc.wantSecret)
			}
		})
	}
}

func TestLoadOAuthSecret(t *testing.T) {
	random := func(n int) []byte {
		b := make([]byte, n)
		rand.Read(b)
		return b
	}
	// Made the way `openssl rand -base64 32` and `openssl rand -hex 32`
	// make them, when the test runs: no secret lives in the repository.
	base64Secret := base64.StdEncoding.EncodeToString(random(32))
	hexSecret := hex.EncodeToString(random(32))
	urlSecret := base64.RawURLEncoding.EncodeToString(random(32))
	const advice = "openssl rand -base64 32"
	for _, tc := range []struct {
		name             string
		secret, previous string
		wantErr          string // substring; "" = accepted
	}{
		{name: "openssl rand -base64 32", secret: base64Secret},
		{name: "openssl rand -hex 32", secret: hexSecret},
		{name: "base64url", secret: urlSecret},
		{name: "with a line break after it", secret: base64Secret + "\n"},
		{name: "rotation", secret: hexSecret, previous: base64Secret},
		{name: "unset"},
		{name: "previous alone", previous: base64Secret, wantErr: "OAUTH_SECRET_PREVIOUS is set without OAUTH_SECRET"},
		{name: "32 characters of hex: 16 bytes", secret: hex.EncodeToString(random(16)), wantErr: "OAUTH_SECRET is refused: it decodes to fewer than 32 bytes"},
		{name: "32 characters of text", secret: "my oauth secret is 32 chars long", wantErr: "OAUTH_SECRET is refused: it is neither base64"},
		{name: "not random", secret: base64.StdEncoding.EncodeToString(make([]byte, 32)), wantErr: "OAUTH_SECRET is refused: its bytes are a pattern"},
		{name: "previous refused", secret: base64Secret, previous: strings.Repeat("ab", 32), wantErr: "OAUTH_SECRET_PREVIOUS is refused: its bytes are a pattern"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(env(map[string]string{
				"MEMOS_URL":             "https://m.example.com",
				"OAUTH_SECRET":          tc.secret,
				"OAUTH_SECRET_PREVIOUS": tc.previous,
			}), noBindings)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if c.OAuthSecret != strings.TrimSpace(tc.secret) || c.OAuthSecretPrevious != tc.previous {
					t.Errorf("the secrets were not kept")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
			if tc.secret != "" && !strings.Contains(err.Error(), advice) {
				t.Errorf("error %q does not say how to make a secret", err)
			}
			for _, s := range []string{tc.secret, tc.previous} {
				if s != "" && strings.Contains(err.Error(), s) {
					t.Errorf("error %q quotes a secret", err)
				}
			}
			if c.OAuthSecret != "" || c.OAuthSecretPrevious != "" {
				t.Error("a refused secret was kept: OAuth would turn on with it")
			}
		})
	}
}

// The settings that switch something on or off: LOCKDOWN (default
// false) and CARDS (default true).
func TestLoadSwitches(t *testing.T) {
	for _, tc := range []struct {
		name, setting, value string
		want                 bool
		wantErr              string
	}{
		{name: "LOCKDOWN unset", setting: "LOCKDOWN", value: "", want: false},
		{name: "LOCKDOWN on", setting: "LOCKDOWN", value: " true ", want: true},
		{name: "LOCKDOWN off", setting: "LOCKDOWN", value: "false", want: false},
		{name: "LOCKDOWN not a boolean", setting: "LOCKDOWN", value: "others", wantErr: "LOCKDOWN"},
		{name: "CARDS unset", setting: "CARDS", value: "", want: true},
		{name: "CARDS off", setting: "CARDS", value: " false ", want: false},
		{name: "CARDS not a boolean", setting: "CARDS", value: "off", wantErr: "CARDS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(env(map[string]string{"MEMOS_URL": "https://m.example.com", tc.setting: tc.value}), func(string) bool { return false })
			got := map[string]bool{"LOCKDOWN": c.Lockdown, "CARDS": c.Cards}[tc.setting]
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one naming %s", err, tc.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case got != tc.want:
				t.Errorf("%s = %v, want %v", tc.setting, got, tc.want)
			}
		})
	}
}
