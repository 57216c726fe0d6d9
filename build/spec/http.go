package spec

import (
	"encoding/json"
	"net/http"
)

// AllowMethods are the methods a site answers: the Allow header, and the
// Access-Control-Allow-Methods of CORSHeaders.
const AllowMethods = "GET, HEAD, OPTIONS"

// CORSHeaders returns the headers every response of a site carries,
// whatever its status, as name and value: browsers need CORS on errors,
// 304s and preflights too, and a host must not make them depend on the
// request's Origin header.
func CORSHeaders() [4][2]string {
	return [...][2]string{
		{"Access-Control-Allow-Origin", "*"},
		{"Access-Control-Allow-Methods", AllowMethods},
		{"Access-Control-Allow-Headers", "Authorization, Content-Type, If-None-Match"},
		{"Access-Control-Expose-Headers", "ETag"},
	}
}

// PreflightMaxAge is the Access-Control-Max-Age of a preflight answer, in
// seconds: a day.
const PreflightMaxAge = "86400"

// ErrorCacheControl is the Cache-Control of an error: never cached, so a
// document that appears is seen at once.
const ErrorCacheControl = "no-store"

// NotFoundMessage is the message of the 404 a site answers for a path that
// is neither a tool nor a document.
const NotFoundMessage = "no tool or document at this path in this catalog"

// ErrorBody is the JSON error document of every error a site answers,
// served as ContentTypeJSON: {"error":{"status":404,"message":"..."}} and a
// newline.
func ErrorBody(status int, message string) []byte {
	type errorObject struct {
		Status  int    `json:"status"`
		Message string `json:"message"`
	}
	body, _ := json.Marshal(struct {
		Error errorObject `json:"error"`
	}{errorObject{status, message}})
	return append(body, '\n')
}

// NotFoundBody is the error document of an unknown path.
func NotFoundBody() []byte { return ErrorBody(http.StatusNotFound, NotFoundMessage) }
