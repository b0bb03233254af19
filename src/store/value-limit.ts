// The largest value memoria binds into one column of storage. sqld, the server Turso runs, refuses a bound
// value past 4,999,995 bytes ("string or blob too big") and cannot even read one of that size back: measured
// byte by byte on sqld 0.24.32 over HTTP and over WebSocket streams alike, where 4,999,936 bytes still went in
// and came out whole. A `file:` database takes far more (SQLite's default is 1e9), so a value sized for it
// alone is never written on the storage memoria is deployed on. The bound keeps ~0.5 MB of that margin; what
// memoria stores large (an index snapshot's sealed parts) is cut to fit under it, and putPart refuses a value
// past it before sending it.
export const STORED_VALUE_MAX_BYTES = 4_500_000;
