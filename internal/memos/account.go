package memos

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// The calls below serve the consent step of the gateway's authorization
// server: they act for a person who signs in, not for a tool.

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
	r, err := c.account(ctx, "POST", RouteSignIn, "", body)
	if err != nil {
		return "", "", err
	}
	token, user = r.Get("accessToken").Str, r.Get("user").Get("name").Str
	if token == "" || user == "" {
		return "", "", &Error{Msg: "Memos answered the sign-in without a token"}
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
	id, ok := strings.CutPrefix(user, "users/")
	if !ok {
		return "", "", &Error{Msg: "not a Memos user name"}
	}
	r, err := c.account(ctx, "POST", Path(RoutePersonalAccessTokens, id), bearer, body)
	if err != nil {
		return "", "", err
	}
	token, name = r.Get("token").Str, r.Get("personalAccessToken").Get("name").Str
	if token == "" || name == "" {
		return "", "", &Error{Msg: "Memos answered without the new token"}
	}
	return token, name, nil
}

// CurrentUser returns the resource name of the user a token belongs to;
// the *Error is Refused when Memos does not accept it.
func (c *Client) CurrentUser(ctx context.Context, token string) (string, error) {
	r, err := c.account(ctx, "GET", RouteCurrentUser, token, nil)
	if err != nil {
		return "", err
	}
	user := r.Get("user").Get("name").Str
	if user == "" {
		return "", &Error{Msg: errBadCredentials, Refused: true}
	}
	return user, nil
}

// DeleteToken deletes the personal access token called name, authorized by
// the token itself.
func (c *Client) DeleteToken(ctx context.Context, token, name string) error {
	path, ok := NamePath(RoutePersonalAccessToken, name)
	if !ok {
		return &Error{Msg: "not a Memos resource name"}
	}
	_, err := c.account(ctx, "DELETE", path, token, nil)
	return err
}

// account sends one request of the calls above and returns its JSON answer.
// Memos' 400, 401 or 403 is a Refused *Error, unless it asks for a
// challenge; any other failure is explained as a tool call's would be.
func (c *Client) account(ctx context.Context, method, path, bearer string, body []byte) (rawjson.Value, error) {
	if strings.Contains(path, "..") || strings.ContainsAny(path, "?#") {
		return rawjson.Value{}, &Error{Msg: "not a Memos resource name"}
	}
	header := web.Header{"accept": "application/json"}
	if bearer != "" {
		header["authorization"] = "Bearer " + bearer
	}
	c.addAccess(header) // the person's own credentials travel with it
	req := &web.Request{Method: method, URL: c.base + path, Header: header, Body: body, Timeout: c.opts.Timeout}
	if body != nil {
		header["content-type"] = "application/json"
	}
	resp, err := c.doer.Do(ctx, req)
	if err != nil {
		return rawjson.Value{}, &Error{Msg: c.failure(ctx, err), Unsure: true}
	}
	switch {
	case resp.Status == 429:
		msg, _ := c.refusal(resp)
		e := &Error{Status: 429, Msg: msg}
		if wait, limited := retryAfter(resp, time.Now()); limited {
			e.Wait = max(wait, time.Second)
			e.Msg += " (retry after " + waitText(e.Wait) + ")"
		}
		return rawjson.Value{}, e
	case resp.Status >= 400 && resp.Status <= 499 && challengeRequired(resp.Body):
		return rawjson.Value{}, &Error{Status: resp.Status, Msg: errChallenge, Challenge: true}
	case (resp.Status == 400 || resp.Status == 401 || resp.Status == 403) && memosJSON(resp.Body):
		// Memos' own refusal: a page of Cloudflare Access refusing the
		// service token says nothing of the person's credentials.
		return rawjson.Value{}, &Error{Status: resp.Status, Msg: errBadCredentials, Refused: true}
	case resp.Status < 200 || resp.Status > 299:
		msg, _ := c.refusal(resp)
		return rawjson.Value{}, &Error{Status: resp.Status, Msg: msg}
	case len(resp.Body) == 0:
		return rawjson.Value{}, nil
	case !rawjson.ValidBytes(resp.Body):
		msg, _ := c.notJSON(resp)
		return rawjson.Value{}, &Error{Status: resp.Status, Msg: msg}
	}
	return rawjson.ParseBytes(resp.Body), nil
}
