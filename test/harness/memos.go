package harness

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Memos is a running Memos instance with a first user and a personal access
// token made through its API.
type Memos struct {
	URL      string // base URL, e.g. http://127.0.0.1:40123
	Username string
	Password string // the first user's, to sign in to Memos' web page
	Token    string // personal access token: Authorization: Bearer <Token>
	proc     *Process
}

// MemosBinary returns the Memos server binary that `make memos` built, from
// $MEMOS_BIN.
func MemosBinary() (string, error) {
	bin := os.Getenv("MEMOS_BIN")
	if bin == "" {
		return "", errors.New("MEMOS_BIN is not set: run the tests through `make test`, which builds Memos and sets it")
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("MEMOS_BIN: %w", err)
	}
	return bin, nil
}

// StartMemos starts bin with a fresh data folder under dir on a free loopback
// port, with --instance-url set so that anonymous reads work, and creates the
// first user (an admin) and a personal access token.
func StartMemos(ctx context.Context, bin, dir string) (*Memos, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "memos-data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	proc, err := start(bin, dir, dir, nil,
		"--addr", "127.0.0.1", "--port", strconv.Itoa(port), "--data", data, "--instance-url", url)
	if err != nil {
		return nil, err
	}
	m := &Memos{URL: url, Username: "admin", proc: proc}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := proc.waitHTTP(ctx, url+"/healthz", http.StatusOK); err != nil {
		proc.Stop()
		return nil, err
	}
	if err := m.bootstrap(ctx); err != nil {
		proc.Stop()
		return nil, fmt.Errorf("memos bootstrap: %w", err)
	}
	return m, nil
}

// Stop ends the instance.
func (m *Memos) Stop() { m.proc.Stop() }

// Log returns the instance's output.
func (m *Memos) Log() string { return m.proc.Log() }

// Done is closed when the instance has ended, stopped or not; ExitErr then
// says how.
func (m *Memos) Done() <-chan struct{} { return m.proc.Done() }

// ExitErr says how the instance ended, once Done is closed.
func (m *Memos) ExitErr() error { return m.proc.ExitErr() }

// LogPath is the file that holds the instance's output.
func (m *Memos) LogPath() string { return m.proc.logPath }

// bootstrap creates the first user, signs in and creates a token that never
// expires.
func (m *Memos) bootstrap(ctx context.Context) error {
	m.Password = newPassword()
	if err := m.post(ctx, "/api/v1/users", "", map[string]any{"username": m.Username, "password": m.Password}, nil); err != nil {
		return fmt.Errorf("create first user: %w", err)
	}
	token, err := m.newToken(ctx, m.Username, m.Password)
	m.Token = token
	return err
}

// User is another user of the instance than the first, with a token.
type User struct {
	Name  string // resource name, users/<id>
	Token string // personal access token
}

// AddUser creates a user who is not an admin, as the first user does
// (POST /api/v1/users), and a personal access token for them.
func (m *Memos) AddUser(ctx context.Context, username string) (User, error) {
	password := newPassword()
	var created struct {
		Name string `json:"name"`
	}
	if err := m.post(ctx, "/api/v1/users", m.Token, map[string]any{"username": username, "password": password, "role": "USER"}, &created); err != nil {
		return User{}, fmt.Errorf("create user %s: %w", username, err)
	}
	token, err := m.newToken(ctx, username, password)
	return User{Name: created.Name, Token: token}, err
}

func newPassword() string {
	secret := make([]byte, 12)
	rand.Read(secret)
	return hex.EncodeToString(secret)
}

// newToken signs in as username and creates a personal access token that
// never expires.
func (m *Memos) newToken(ctx context.Context, username, password string) (string, error) {
	var signin struct {
		AccessToken string `json:"accessToken"`
	}
	creds := map[string]any{"passwordCredentials": map[string]any{"username": username, "password": password}}
	if err := m.post(ctx, "/api/v1/auth/signin", "", creds, &signin); err != nil {
		return "", fmt.Errorf("sign in: %w", err)
	}
	var pat struct {
		Token string `json:"token"`
	}
	req := map[string]any{"description": "memos-mcp-edge", "expiresInDays": 0}
	if err := m.post(ctx, "/api/v1/users/"+username+"/personalAccessTokens", signin.AccessToken, req, &pat); err != nil {
		return "", fmt.Errorf("create personal access token: %w", err)
	}
	if pat.Token == "" {
		return "", errors.New("create personal access token: empty token in the answer")
	}
	return pat.Token, nil
}

// post sends a JSON request to the instance and decodes a 2xx answer into out.
func (m *Memos) post(ctx context.Context, path, bearer string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.URL+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: %s: %s", path, resp.Status, answer)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(answer, out)
}
