package upstream

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// The calls below serve the consent step of the gateway's authorization
// server: they act for a person who signs in, not for a tool.

// ErrBadCredentials is a sign-in that Memos refused, or a token it did not
// accept. Its Refused method lets callers tell it apart without importing
// this package.
var ErrBadCredentials error = refusedError{}

type refusedError struct{}

func (refusedError) Error() string { return "Memos did not accept these credentials" }
func (refusedError) Refused() bool { return true }

// accountError is any other failure of the calls below. Its methods let
// callers tell Memos' rate limit and its challenge apart, without importing
// this package:
//   - RetryAfter reports a 429 and how long Memos asked to wait;
//   - ChallengeRequired reports that Memos asks for a challenge (a captcha)
//     that the gateway cannot show.
type accountError struct {
	msg       string
	wait      time.Duration
	limited   bool
	challenge bool
}

func (e *accountError) Error() string                     { return e.msg }
func (e *accountError) RetryAfter() (time.Duration, bool) { return e.wait, e.limited }
func (e *accountError) ChallengeRequired() bool           { return e.challenge }

// errChallenge explains a sign-in Memos refused for want of a challenge.
const errChallenge = "this Memos instance asks for a challenge (a captcha) at sign-in, which only its own web app can show: sign in there, create an access token (Settings, Access Tokens) and use that token instead of the password"

// SignIn signs in to Memos with a username and password and returns the
// short-lived access token it issues and the user's resource name.
func (c *Client) SignIn(ctx context.Context, username, password string) (token, user string, err error) {
	body := []byte(`{"passwordCredentials":{"username":`)
	body = rawjson.AppendString(body, username)
	body = append(body, `,"password":`...)
	body = rawjson.AppendString(body, password)
	body = append(body, "}}"...)
	r, err := c.account(ctx, "POST", "/api/v1/auth/signin", "", body)
	if err != nil {
		return "", "", err
	}
	token, user = r.Get("accessToken").Str, r.Get("user").Get("name").Str
	if token == "" || user == "" {
		return "", "", errors.New("Memos answered the sign-in without a token")
	}
	return token, user, nil
}

// CreateToken creates a personal access token for user, authorized by a
// sign-in's access token, and returns it with its resource name. It shows
// in the user's Memos settings under description, where they can delete it.
// days 0 means it never expires.
func (c *Client) CreateToken(ctx context.Context, bearer, user, description string, days int) (token, name string, err error) {
	body := []byte(`{"description":`)
	body = rawjson.AppendString(body, description)
	body = append(body, `,"expiresInDays":`...)
	body = strconv.AppendInt(body, int64(days), 10)
	body = append(body, '}')
	r, err := c.account(ctx, "POST", "/api/v1/"+user+"/personalAccessTokens", bearer, body)
	if err != nil {
		return "", "", err
	}
	token, name = r.Get("token").Str, r.Get("personalAccessToken").Get("name").Str
	if token == "" || name == "" {
		return "", "", errors.New("Memos answered without the new token")
	}
	return token, name, nil
}

// CurrentUser returns the resource name of the user a token belongs to,
// or ErrBadCredentials when Memos does not accept it.
func (c *Client) CurrentUser(ctx context.Context, token string) (string, error) {
	r, err := c.account(ctx, "GET", "/api/v1/auth/me", token, nil)
	if err != nil {
		return "", err
	}
	user := r.Get("user").Get("name").Str
	if user == "" {
		return "", ErrBadCredentials
	}
	return user, nil
}

// DeleteToken deletes the personal access token called name, authorized by
// the token itself.
func (c *Client) DeleteToken(ctx context.Context, token, name string) error {
	_, err := c.account(ctx, "DELETE", "/api/v1/"+name, token, nil)
	return err
}

// InstanceName names the instance for people: MEMOS_URL's host and path, or
// the service binding it is reached through.
func (c *Client) InstanceName() string {
	if c.cfg.MemosURL != nil {
		return c.cfg.MemosURL.Host + c.cfg.MemosURL.Path
	}
	return "the Memos instance behind this gateway"
}

// account sends one request of the calls above and returns its JSON answer.
// Memos' 400, 401 or 403 is ErrBadCredentials, unless it asks for a challenge; any
// other failure is an *accountError explained as a tool call's would be.
func (c *Client) account(ctx context.Context, method, path, bearer string, body []byte) (rawjson.Value, error) {
	if strings.Contains(path, "..") || strings.ContainsAny(path, "?#") {
		return rawjson.Value{}, errors.New("not a Memos resource name")
	}
	header := web.Header{"accept": "application/json"}
	if bearer != "" {
		header["authorization"] = "Bearer " + bearer
	}
	c.addAccess(header) // the person's own credentials travel with it
	req := &web.Request{Method: method, URL: c.endpoint(path), Header: header, Body: body, Timeout: c.cfg.Timeout}
	if body != nil {
		header["content-type"] = "application/json"
	}
	resp, err := c.doer.Do(ctx, req)
	if err != nil {
		return rawjson.Value{}, &accountError{msg: c.failure(ctx, err)}
	}
	switch {
	case resp.Status == 429:
		msg, _ := c.refusal(resp)
		e := &accountError{msg: msg}
		if e.wait, e.limited = retryAfter(resp, time.Now()); e.limited {
			e.wait = max(e.wait, time.Second)
			e.msg += " (retry after " + waitText(e.wait) + ")"
		}
		return rawjson.Value{}, e
	case resp.Status >= 400 && resp.Status <= 499 && challengeRequired(resp.Body):
		return rawjson.Value{}, &accountError{msg: errChallenge, challenge: true}
	case (resp.Status == 400 || resp.Status == 401 || resp.Status == 403) && memosJSON(resp.Body):
		// Memos' own refusal: a page of Cloudflare Access refusing the
		// service token says nothing of the person's credentials.
		return rawjson.Value{}, ErrBadCredentials
	case resp.Status < 200 || resp.Status > 299:
		msg, _ := c.refusal(resp)
		return rawjson.Value{}, &accountError{msg: msg}
	case len(resp.Body) == 0:
		return rawjson.Value{}, nil
	case !rawjson.ValidBytes(resp.Body):
		msg, _ := c.notJSON(resp)
		return rawjson.Value{}, &accountError{msg: msg}
	}
	return rawjson.ParseBytes(resp.Body), nil
}
