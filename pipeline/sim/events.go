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
// time, found through a hash of the time (timeIndex), and a binary
// min-heap of the distinct times. Events of a schedule end at few distinct
// times (a moment of 1F1B on 64 ranks ends about 17), so scheduling is a
// probe of a small table and an append, and the heap is of moments rather
// than of events; the order is the (time, sequence) order of a heap of all
// events, ties included.
type eventQueue struct {
	times []moment    // min-heap of the distinct pending times
	index timeIndex   // time → its list
	lists []eventList // lists by number; a free list is empty
	free  []int32     // lists to reuse
	n     int         // events pending
	// recent holds the two lists events were last scheduled on, the
	// latest first: events come in runs at one time, or two alternating.
	recent [2]recentList
}

// recentList is a list of the queue and its time; list 0 is none.
type recentList struct {
	time float64
	list int32
}

// eventList is the events of one pending time, the next to hand out at
// head.
type eventList struct {
	events []event
	head   int
}

// moment is a distinct pending time and its list.
type moment struct {
	time float64
	list int32
}

// timeKey returns the key of time t; 0 and -0 are one time.
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
	var l int32
	switch r := &q.recent; {
	case r[0].list != 0 && r[0].time == t:
		l = r[0].list
	case r[1].list != 0 && r[1].time == t:
		l = r[1].list
		r[0], r[1] = r[1], r[0]
	default:
		l = q.listOf(t)
		r[1], r[0] = r[0], recentList{t, l}
	}
	el := &q.lists[l-1]
	el.events = append(el.events, event{kind: kind, id: id})
	q.n++
}

// listOf returns the list of time t plus one, opening it if t has none.
func (q *eventQueue) listOf(t float64) int32 {
	key := timeKey(t)
	slot, l := q.index.find(key)
	if l == 0 {
		if n := len(q.free); n > 0 {
			l, q.free = q.free[n-1], q.free[:n-1]
		} else {
			q.lists = append(q.lists, eventList{})
			l = int32(len(q.lists))
		}
		q.index.insert(slot, key, l)
		q.push(moment{t, l})
	}
	return l
}

// next removes and returns the earliest event if it is at time now, the
// moment the caller handles. The earliest time's list stays until it is
// found spent, so that events scheduled at that time while its events are
// handled join its end.
func (q *eventQueue) next(now float64) (event, bool) {
	if len(q.times) > 0 {
		if m := &q.times[0]; m.time == now {
			if el := &q.lists[m.list-1]; el.head < len(el.events) {
				e := el.events[el.head]
				el.head++
				q.n--
				return e, true
			}
		}
	}
	if q.n == 0 {
		return event{}, false
	}
	q.dropSpent()
	if q.times[0].time != now {
		return event{}, false
	}
	return q.next(now)
}

// dropSpent removes the earliest time while its list is spent.
func (q *eventQueue) dropSpent() {
	for len(q.times) > 0 {
		m := q.times[0]
		el := &q.lists[m.list-1]
		if el.head < len(el.events) {
			return
		}
		q.index.remove(timeKey(m.time))
		for i := range q.recent {
			if q.recent[i].list == m.list {
				q.recent[i] = recentList{}
			}
		}
		el.events, el.head = el.events[:0], 0
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
