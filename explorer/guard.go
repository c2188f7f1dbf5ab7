package explorer

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// guard refuses requests the page cannot have sent:
//   - unless the server is Remote, a request whose Host is not a loopback
//     name (so that a web page elsewhere cannot reach the API through a
//     name that resolves to 127.0.0.1: DNS rebinding), or whose peer is not
//     a loopback address;
//   - a request whose Origin, when the browser sends one, is not the
//     page's own (http:// and the request's Host), or that the browser
//     marks as coming from another site (Sec-Fetch-Site).
//
// Only JSON posts reach the API (decodeRequest), which a page of another
// origin cannot send without a CORS grant the server never gives.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.Remote && (!loopbackHost(r.Host) || !loopbackPeer(r.RemoteAddr)) {
			http.Error(w, "pipelab serve answers on a loopback address only (127.0.0.1, ::1 or localhost)", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !sameOrigin(o, r.Host) {
			http.Error(w, "pipelab serve answers its own page only: Origin "+o+" is another site", http.StatusForbidden)
			return
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
			http.Error(w, "pipelab serve answers its own page only: the request came from another site", http.StatusForbidden)
			return
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}

// sameOrigin says whether origin is the page's own: http://HOST.
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Scheme == "http" && u.Host == host && u.Path == "" && u.User == nil
}

func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackPeer says whether a request's remote address is a loopback one.
func loopbackPeer(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// LoopbackAddr says whether a listening address host:port binds loopback
// only: an empty host (":8080") or 0.0.0.0 binds every interface.
func LoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	return loopbackHost(host)
}
