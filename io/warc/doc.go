// Package warc reads WARC files (ISO 28500, WARC/1.0 and 1.1) as a stream
// of records and builds Arrow record batches from them.
//
// Three layouts are read the same way: plain .warc, .warc.gz with one gzip
// member per record (as Common Crawl writes them, WET files included) and a
// .warc.gz compressed as one gzip stream. The Reader parses records straight
// out of a reusable buffer of decompressed bytes; a record's block is valid
// until the next call to Next.
//
// Damage is local. A record whose header is malformed, whose block is not
// followed by the CRLF CRLF that ends a record (a wrong Content-Length), or
// that the end of the file cuts short, is returned as a *RecordError that
// names its byte offset, and the next call to Next goes on at the next
// record: the reader looks for the next line that starts "WARC/1." (and,
// inside a corrupt gzip member, for the next member's header). The offset
// of a record is its offset in the file for plain WARC, and the offset of
// the gzip member it starts in for compressed files, which is what Common
// Crawl's indexes give; the error message adds the offset in the
// decompressed stream.
//
// A record larger than Options.MaxRecordBytes is reported as ErrTooLarge
// and its block skipped unread, a buffer at a time. A gzip member that
// fails its CRC or size check spoils every record it holds: they are
// RecordErrors too (the reader reads up to 64 KiB past a record to see its
// member checked; a member holding more is checked later, and only
// StreamErr reports it). Damage that may lose records rather than only
// spoil them is also the file's error, which StreamErr returns once Next
// has returned io.EOF: a corrupt or truncated gzip member, a plain or
// compressed file that ends inside a record, and a too-large record whose
// Content-Length does not lead to the end of a record. Nothing is dropped
// without either a RecordError or StreamErr saying so.
//
// Batches (see BatchReader) have one row per record of the chosen types,
// with the columns url, warc_type, warc_date, warc_record_id, content_type,
// http_status, payload (the HTTP body of a response, the block of other
// records), text (the block of conversion records, as in WET files) and
// warc_language (WARC-Identified-Content-Language). A response whose HTTP
// body cannot be given (a content encoding that does not decode, or a body
// over BatchOptions.MaxRecordBytes once decoded) is a bad record rather
// than a row: see HTTPResponse.Err. Ownership follows arrow-go: a batch
// returned by Next belongs to the caller, who releases it.
package warc
