// Package cachetrim decides what a supervisor's caches of its members keep
// of each object: only what the leader controllers read of it. A supervisor
// caches every member it follows, so every byte kept of an object is kept
// once per member and per supervisor; the rest is dropped as the object
// enters the cache (a client-go transform), before it is stored.
//
// The functions here are pure: an object in, the object to keep out.
package cachetrim
