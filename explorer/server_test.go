package explorer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	typed "github.com/pipelab/pipelab/request"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeTrain is a train command (Server.Commands) whose run is run, its
// records streamed, whose flags are --kind and --ranks as values and
// --schedule as a file.
func fakeTrain(run func(ctx context.Context, record func(any)) error) typed.Command {
	decode := func(args []string, stderr io.Writer) error {
		fs := typed.NewFlags("train", "", "", stderr)
		fs.String("kind", "", "")
		fs.String("ranks", "", "")
		fs.String("schedule", "", "")
		typed.MarkFiles(fs, typed.ReadsFile, nil, "schedule")
		return typed.ParseFlags(fs, args)
	}
	stream := func(ctx context.Context, args []string, record func(any), stderr io.Writer) (typed.Report, error) {
		if err := decode(args, stderr); err != nil {
			return nil, err
		}
		if record == nil {
			record = func(any) {}
		}
		return typed.Kinds(), run(ctx, record)
	}
	c := typed.NewCommand("train", true, func(ctx context.Context, args []string, stderr io.Writer) (typed.Report, error) {
		return stream(ctx, args, nil, stderr)
	}, decode)
	c.Stream = stream
	return c
}

// A queue of one slot hands it on in order of arrival; a request whose
// context ends while it waits leaves the queue, and the status counts
// what runs and what waits.
func TestQueueOrderAndCancel(t *testing.T) {
	q := newQueue(1)
	if err := q.acquire(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 3)
	positions := make(chan int, 3)
	wait := func(name string, ctx context.Context) {
		go func() {
			if err := q.acquire(ctx, func(p int) { positions <- p }); err != nil {
				got <- name + " gave up"
				return
			}
			got <- name
		}()
		<-positions // queued before the next one arrives
	}
	ctxC, cancelC := context.WithCancel(context.Background())
	wait("b", context.Background())
	wait("c", ctxC)
	wait("d", context.Background())
	if st := q.status(); st != (QueueStatus{Slots: 1, Running: 1, Waiting: 3}) {
		t.Errorf("status %+v, want 1 slot, 1 running, 3 waiting", st)
	}
	cancelC()
	if g := <-got; g != "c gave up" {
		t.Fatalf("%s first, want c to give up", g)
	}
	q.release()
	if g := <-got; g != "b" {
		t.Fatalf("%s took the slot, want b (first in the queue)", g)
	}
	q.release()
	if g := <-got; g != "d" {
		t.Fatalf("%s took the slot, want d", g)
	}
	q.release()
	if st := q.status(); st != (QueueStatus{Slots: 1}) {
		t.Errorf("status %+v at the end, want nothing running or waiting", st)
	}
}

// countingBody is n bytes of a request of short flags, {"flags":
// {"a0":"1","a1":"1",...}}, made as they are read, and the count read.
type countingBody struct {
	n, read int64
	next    int
	buf     []byte
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.read >= b.n {
		return 0, io.EOF
	}
	for len(b.buf) < len(p) {
		if b.next == 0 {
			b.buf = append(b.buf, `{"flags":{`...)
		}
		b.buf = fmt.Appendf(b.buf, `"a%d":"1",`, b.next)
		b.next++
	}
	k := copy(p, b.buf[:min(int64(len(p)), b.n-b.read)])
	b.buf = b.buf[k:]
	b.read += int64(k)
	return k, nil
}

// A 64 MiB body of short flags is refused before it is decoded: with its
// length declared, before a byte of it is read; sent in chunks, as soon
// as the flags pass maxFlags, having read a few kilobytes of it.
func TestLargeBodyRefusedBeforeDecoding(t *testing.T) {
	ran := false
	s := &Server{Commands: []typed.Command{fakeTrain(func(context.Context, func(any)) error { ran = true; return nil })}}
	h := s.Handler()
	for _, declared := range []bool{true, false} {
		body := &countingBody{n: 64 << 20}
		req := httptest.NewRequest("POST", "http://127.0.0.1/api/train", body)
		req.RemoteAddr = "127.0.0.1:5555"
		req.Header.Set("Content-Type", "application/json")
		req.ContentLength = -1
		if declared {
			req.ContentLength = body.n
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusRequestEntityTooLarge || ran {
			t.Errorf("declared %v: status %d (%s), command ran %v; want 413 and no command", declared, rec.Code, rec.Body, ran)
		}
		// json.Decoder reads ahead in blocks of a few kilobytes; maxFlags
		// short flags are about 2.6 kB.
		if limit := int64(64 << 10); body.read > limit || declared && body.read > 0 {
			t.Errorf("declared %v: %d bytes of the body read before the refusal", declared, body.read)
		}
	}
}

// The guard refuses what the page cannot have sent: a foreign Host, a
// peer off loopback (unless the server is Remote), another site's Origin
// or Sec-Fetch-Site.
func TestGuard(t *testing.T) {
	for _, tc := range []struct {
		host, peer, origin, site string
		remote                   bool
		want                     int
	}{
		{"127.0.0.1:8080", "127.0.0.1:5000", "", "", false, http.StatusOK},
		{"localhost:8080", "[::1]:5000", "http://localhost:8080", "same-origin", false, http.StatusOK},
		{"attacker.example:8080", "127.0.0.1:5000", "", "", false, http.StatusForbidden},
		{"127.0.0.1:8080", "192.0.2.7:5000", "", "", false, http.StatusForbidden},
		{"127.0.0.1:8080", "127.0.0.1:5000", "http://attacker.example", "", false, http.StatusForbidden},
		{"127.0.0.1:8080", "127.0.0.1:5000", "https://127.0.0.1:8080", "", false, http.StatusForbidden},
		{"127.0.0.1:8080", "127.0.0.1:5000", "", "cross-site", false, http.StatusForbidden},
		{"pipelab.lan:8080", "192.0.2.7:5000", "http://pipelab.lan:8080", "", true, http.StatusOK},
		{"pipelab.lan:8080", "192.0.2.7:5000", "http://attacker.example", "", true, http.StatusForbidden},
	} {
		s := &Server{Remote: tc.remote}
		req := httptest.NewRequest("GET", "http://"+tc.host+"/api/queue", nil)
		req.RemoteAddr = tc.peer
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		if tc.site != "" {
			req.Header.Set("Sec-Fetch-Site", tc.site)
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("%+v: status %d, want %d", tc, rec.Code, tc.want)
		}
	}
	for addr, want := range map[string]bool{"127.0.0.1:8080": true, "localhost:0": true, "[::1]:80": true, ":8080": false, "0.0.0.0:8080": false, "192.0.2.7:80": false} {
		if got := LoopbackAddr(addr); got != want {
			t.Errorf("LoopbackAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}

// serve serves s on a loopback port of its own, as pipelab serve does.
func serve(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer()
	go hs.Serve(LimitListener(ln, MaxConns))
	t.Cleanup(func() { hs.Close() })
	return ln.Addr().String()
}

// A stream client that stops reading does not delay another request, even
// with one slot: the replay never waits on the client, so it ends and
// frees its slot; the write that the client does not take within
// WriteTimeout fails, which cancels the replay.
func TestStalledStreamReaderDelaysNoOne(t *testing.T) {
	cancelled := make(chan struct{})
	s := &Server{
		Slots: 1, WriteTimeout: 300 * time.Millisecond,
		// A replay of 10⁴ records of 64 kB, 640 MB: far more than the
		// socket buffers between the two ends hold.
		Commands: []typed.Command{fakeTrain(func(ctx context.Context, record func(any)) error {
			big := strings.Repeat("x", 64<<10)
			for range 10000 {
				if ctx.Err() != nil {
					close(cancelled)
					return ctx.Err()
				}
				record(big)
				time.Sleep(100 * time.Microsecond)
			}
			return nil
		})},
	}
	addr := serve(t, s)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"flags":{}}`
	fmt.Fprintf(conn, "POST /api/train/stream HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
	// The client reads nothing from here on. Another request is answered
	// while it stalls.
	time.Sleep(200 * time.Millisecond)
	answered := make(chan error, 1)
	go func() {
		res, err := http.Post("http://"+addr+"/api/kinds", "application/json", strings.NewReader(`{"flags":{}}`))
		if err == nil {
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				err = fmt.Errorf("status %d", res.StatusCode)
			}
		}
		answered <- err
	}()
	select {
	case err := <-answered:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a request waited 20 s behind a stalled stream reader")
	}
	select {
	case <-cancelled:
	case <-time.After(20 * time.Second):
		t.Fatal("the stalled reader's replay was not cancelled")
	}
}

// A body that never comes and a kept-alive connection that sends nothing
// are closed by the server (ReadTimeout, IdleTimeout) rather than held.
func TestSlowBodyAndIdleConnectionClosed(t *testing.T) {
	s := &Server{ReadTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond}
	addr := serve(t, s)
	closed := func(conn net.Conn, what string) {
		t.Helper()
		conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		_, err := io.Copy(io.Discard, conn)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Errorf("%s: still open after 20 s", what)
		}
	}
	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fmt.Fprintf(slow, "POST /api/kinds HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"fl", addr)
	closed(slow, "a body that stops after 4 of its 100 bytes")

	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	fmt.Fprintf(idle, "GET /api/queue HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	res, err := http.ReadResponse(bufio.NewReader(idle), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("queue: status %d", res.StatusCode)
	}
	closed(idle, "a kept-alive connection with no second request")
}

// At most n connections are open at once through LimitListener.
func TestLimitListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := LimitListener(ln, 2)
	defer l.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			_ = c // held open
		}
	}()
	for range 3 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	time.Sleep(200 * time.Millisecond)
	if n := accepted.Load(); n != 2 {
		t.Errorf("%d connections accepted, want 2 (the limit)", n)
	}
}

// signalBody is a request body that says when it is first read and then
// gives its text once released.
type signalBody struct {
	read    chan struct{}
	release chan struct{}
	r       io.Reader
}

func newSignalBody(text string) *signalBody {
	return &signalBody{read: make(chan struct{}), release: make(chan struct{}), r: strings.NewReader(text)}
}

func (b *signalBody) Read(p []byte) (int, error) {
	select {
	case <-b.read:
	default:
		close(b.read)
	}
	<-b.release
	return b.r.Read(p)
}

// At most two bodies per slot are decoded at once: with one slot, a third
// body is not read until one of the first two is done.
func TestDecodingBounded(t *testing.T) {
	s := &Server{Slots: 1}
	h := s.Handler()
	bodies := []*signalBody{newSignalBody(`{"flags":{}}`), newSignalBody(`{"flags":{}}`), newSignalBody(`{"flags":{}}`)}
	done := make(chan int, 3)
	for i, body := range bodies {
		req := httptest.NewRequest("POST", "http://127.0.0.1/api/kinds", body)
		req.RemoteAddr = "127.0.0.1:5555"
		req.Header.Set("Content-Type", "application/json")
		go func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			done <- rec.Code
		}()
		if i < 2 {
			select {
			case <-body.read: // decoding, in order of arrival
			case <-time.After(20 * time.Second):
				t.Fatalf("body %d not read with a decoding slot free", i)
			}
		}
	}
	select {
	case <-bodies[2].read:
		t.Fatal("a third body read while two were being decoded on one slot")
	case <-time.After(200 * time.Millisecond):
	}
	close(bodies[0].release)
	if code := <-done; code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	select {
	case <-bodies[2].read:
	case <-time.After(20 * time.Second):
		t.Fatal("the third body was not read once a decoding slot was free")
	}
	close(bodies[1].release)
	close(bodies[2].release)
	for range 2 {
		if code := <-done; code != http.StatusOK {
			t.Errorf("status %d", code)
		}
	}
}
