package sim

import "math"

// eventKind says what ends when an event fires.
type eventKind uint8

const (
	evCompute  eventKind = iota // a compute action ends; id is its node
	evTransfer                  // a transfer arrives; id is the transfer
	evWake                      // a rank stops waiting as planned; id is the rank
)

// event is one entry of the event queue.
type event struct {
	kind eventKind
	id   int32
}

// eventQueue hands out events by time and, among equal times, in the order
// they were scheduled (first in, first out), so runs are reproducible.
//
// It is a calendar of moments: one first-in, first-out list per distinct
// time, found by a map from the time, and a binary min-heap of the
// distinct times. Events of a schedule end at few distinct times (a
// moment of 1F1B on 64 ranks ends about 17), so scheduling is a map look-up
// and an append, and the heap is of moments rather than of events; the
// order is the (time, sequence) order of a heap of all events, ties
// included.
type eventQueue struct {
	times   []moment         // min-heap of the distinct pending times
	moments map[uint64]int32 // time's bits → its list
	lists   [][]event        // lists by index; a free list is empty
	heads   []int            // per list, the next event to hand out
	free    []int32          // lists to reuse
	n       int              // events pending
	// last is the list events were last scheduled on, and its time:
	// events come in runs at one time.
	last     int32
	lastTime float64
}

// moment is a distinct pending time and its list.
type moment struct {
	time float64
	list int32
}

// timeKey returns the map key of time t; 0 and -0 are one time.
func timeKey(t float64) uint64 {
	if t == 0 {
		return 0
	}
	return math.Float64bits(t)
}

func (q *eventQueue) len() int { return q.n }

// earliest returns the time of the next event; the queue must not be
// empty.
func (q *eventQueue) earliest() float64 {
	q.dropSpent()
	return q.times[0].time
}

// schedule adds an event of the given kind at time t.
func (q *eventQueue) schedule(t float64, kind eventKind, id int32) {
	if q.moments == nil {
		q.moments, q.last = map[uint64]int32{}, -1
	}
	l := q.last
	if l < 0 || q.lastTime != t {
		key := timeKey(t)
		var ok bool
		if l, ok = q.moments[key]; !ok {
			if n := len(q.free); n > 0 {
				l, q.free = q.free[n-1], q.free[:n-1]
			} else {
				l = int32(len(q.lists))
				q.lists = append(q.lists, nil)
				q.heads = append(q.heads, 0)
			}
			q.moments[key] = l
			q.push(moment{t, l})
		}
		q.last, q.lastTime = l, t
	}
	q.lists[l] = append(q.lists[l], event{kind: kind, id: id})
	q.n++
}

// next removes and returns the earliest event if it is at time now, the
// moment the caller handles. The earliest time's list stays until it is
// found spent, so that events scheduled at that time while its events are
// handled join its end.
func (q *eventQueue) next(now float64) (event, bool) {
	if q.n == 0 {
		return event{}, false
	}
	if m := q.times[0]; m.time == now && q.heads[m.list] < len(q.lists[m.list]) {
		return q.take(), true
	}
	q.dropSpent()
	if q.times[0].time != now {
		return event{}, false
	}
	return q.take(), true
}

// take hands out the next event of the earliest time's list, which has one.
func (q *eventQueue) take() event {
	l := q.times[0].list
	e := q.lists[l][q.heads[l]]
	q.heads[l]++
	q.n--
	return e
}

// dropSpent removes the earliest time while its list is spent.
func (q *eventQueue) dropSpent() {
	for len(q.times) > 0 {
		m := q.times[0]
		if q.heads[m.list] < len(q.lists[m.list]) {
			return
		}
		delete(q.moments, timeKey(m.time))
		if q.last == m.list {
			q.last = -1
		}
		q.lists[m.list], q.heads[m.list] = q.lists[m.list][:0], 0
		q.free = append(q.free, m.list)
		q.popTime()
	}
}

func (q *eventQueue) push(m moment) {
	h := append(q.times, m)
	i := len(h) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !(m.time < h[parent].time) {
			break
		}
		h[i] = h[parent]
		i = parent
	}
	h[i] = m
	q.times = h
}

func (q *eventQueue) popTime() {
	h := q.times
	last := len(h) - 1
	m := h[last]
	h = h[:last]
	i := 0
	for {
		c := 2*i + 1
		if c >= last {
			break
		}
		if c+1 < last && h[c+1].time < h[c].time {
			c++
		}
		if !(h[c].time < m.time) {
			break
		}
		h[i] = h[c]
		i = c
	}
	if last > 0 {
		h[i] = m
	}
	q.times = h
}
