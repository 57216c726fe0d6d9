package edgetest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// cfValue is a header or query string value of a function event.
type cfValue struct {
	Value      string    `json:"value"`
	MultiValue []cfValue `json:"multiValue,omitempty"`
}

// cfRequest is the request of a function event.
type cfRequest struct {
	Method      string             `json:"method"`
	URI         string             `json:"uri"`
	Querystring map[string]cfValue `json:"querystring"`
	Headers     map[string]cfValue `json:"headers"`
	Cookies     map[string]cfValue `json:"cookies"`
}

// header returns the values of a request header, joined by commas.
func (q cfRequest) header(name string) string {
	v, ok := q.Headers[name]
	if !ok {
		return ""
	}
	if len(v.MultiValue) == 0 {
		return v.Value
	}
	var all []string
	for _, m := range v.MultiValue {
		all = append(all, m.Value)
	}
	return strings.Join(all, ",")
}

// cfBody is the body of a response a function generates.
type cfBody struct {
	Encoding string `json:"encoding"`
	Data     string `json:"data"`
}

// cfResult is what a function returns: a request (viewer-request only),
// or a response, which has a statusCode.
type cfResult struct {
	cfRequest
	StatusCode        *int            `json:"statusCode"`
	StatusDescription string          `json:"statusDescription"`
	Body              json.RawMessage `json:"body"`
}

// response turns a function's response into the edge's. Body: a string,
// or {encoding, data}; HEAD responses carry none.
func (c *cfResult) response(method string) (response, error) {
	status := *c.StatusCode
	if status < 100 || status > 599 {
		return response{}, fmt.Errorf("statusCode %d", status)
	}
	h := http.Header{}
	for name, v := range c.Headers {
		if len(v.MultiValue) == 0 {
			h.Add(name, v.Value)
			continue
		}
		for _, m := range v.MultiValue {
			h.Add(name, m.Value)
		}
	}
	res := response{status: status, header: h}
	if len(c.Body) == 0 || string(c.Body) == "null" {
		return res, nil
	}
	var b cfBody
	var s string
	switch {
	case json.Unmarshal(c.Body, &s) == nil:
		res.body = []byte(s)
	case json.Unmarshal(c.Body, &b) == nil && (b.Encoding == "text" || b.Encoding == ""):
		res.body = []byte(b.Data)
	case b.Encoding == "base64":
		data, err := base64.StdEncoding.DecodeString(b.Data)
		if err != nil {
			return response{}, fmt.Errorf("body: %w", err)
		}
		res.body = data
	default:
		return response{}, fmt.Errorf("body %s is neither a string nor {encoding, data}", c.Body)
	}
	if method == http.MethodHead {
		res.body = nil
	}
	return res, nil
}

// viewerRequest is the viewer's request as a function event has it: the
// URI and query string as sent (escaped), header names in lower case.
func viewerRequest(r *http.Request) cfRequest {
	_, rawQuery, _ := strings.Cut(r.RequestURI, "?")
	uri := viewerPath(r)
	q := cfRequest{Method: r.Method, URI: uri, Querystring: map[string]cfValue{}, Headers: map[string]cfValue{}, Cookies: map[string]cfValue{}}
	var order []string
	multi := map[string][]cfValue{}
	for _, part := range strings.Split(rawQuery, "&") {
		if part == "" {
			continue
		}
		name, value, _ := strings.Cut(part, "=")
		if _, ok := multi[name]; !ok {
			order = append(order, name)
		}
		multi[name] = append(multi[name], cfValue{Value: value})
	}
	for _, name := range order {
		vs := multi[name]
		v := cfValue{Value: vs[0].Value}
		if len(vs) > 1 {
			v.MultiValue = vs
		}
		q.Querystring[name] = v
	}
	add := func(name string, vs []string) {
		v := cfValue{Value: vs[0]}
		if len(vs) > 1 {
			for _, s := range vs {
				v.MultiValue = append(v.MultiValue, cfValue{Value: s})
			}
		}
		q.Headers[strings.ToLower(name)] = v
	}
	add("host", []string{r.Host})
	for name, vs := range r.Header {
		if len(vs) > 0 && !strings.EqualFold(name, "cookie") {
			add(name, vs)
		}
	}
	return q
}

// requestEvent is the event of a function: the request, and for
// viewer-response the response without its body.
func requestEvent(eventType string, req cfRequest, res *response) map[string]any {
	ev := map[string]any{
		"version": "1.0",
		"context": map[string]any{
			"distributionDomainName": "edgetest.cloudfront.net",
			"distributionId":         "EDGETEST",
			"eventType":              eventType,
			"requestId":              "edgetest",
		},
		"viewer":  map[string]any{"ip": "127.0.0.1"},
		"request": req,
	}
	if res != nil {
		h := map[string]cfValue{}
		for name, vs := range res.header {
			v := cfValue{Value: vs[0]}
			if len(vs) > 1 {
				for _, s := range vs {
					v.MultiValue = append(v.MultiValue, cfValue{Value: s})
				}
			}
			h[strings.ToLower(name)] = v
		}
		ev["response"] = map[string]any{
			"statusCode":        res.status,
			"statusDescription": http.StatusText(res.status),
			"headers":           h,
			"cookies":           map[string]any{},
		}
	}
	return ev
}
