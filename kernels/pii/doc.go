// Package pii finds e-mail addresses, phone numbers and IP addresses in
// text and replaces them with tokens, as pre-training pipelines do before
// a corpus is published (datatrove's PIIFormatter, Dolma's PII tagger).
//
// A Masker is built once from Options and is then immutable and safe for
// concurrent use. AppendMasked masks one text; Column masks an Arrow
// string column and counts the replacements per row and kind. The default
// tokens are |||EMAIL_ADDRESS|||, |||PHONE_NUMBER||| and |||IP_ADDRESS|||.
//
// The scanner is written by hand: it skips, through a table lookup, every
// byte that cannot start a match ('@', ':', '+', '(' and digits, for the
// kinds asked for), so ordinary prose is masked at well over 1 GB/s and
// digit-heavy text at a few hundred MB/s; the equivalent regular
// expressions run at a few MB/s.
//
// # What is matched
//
// All matches are ASCII and do not overlap. The scan goes left to right
// and takes a match as soon as it finds it, then goes on after its end:
// an e-mail address is found at its '@', an IPv6 address at its first
// colon, the others at their first character. The boundary rules below
// keep the kinds apart in practice ("2831823829@example.com" is an e-mail
// address, because a phone number may not be followed by '@').
//
// E-mail: a local part of A-Z a-z 0-9 . _ % + - (1 to 64 characters, not
// starting or ending with '.'; after ".." only the part after it counts),
// '@', and a domain of at least two labels separated by dots. A label is
// 1 to 63 letters, digits and hyphens, not starting or ending with a
// hyphen; the last label, the top-level domain, is at least two letters
// and nothing else; the domain is at most 253 bytes. So "john@example.com"
// and "a.b+tag@mail.example.co.uk" match; "@mention", "a@b",
// "user@localhost", "john.@example.com", "john@example.c" and
// "josé@example.com" (not ASCII) do not.
//
// Phone, North American (NANP): ten digits whose area code starts with 2
// to 9, written as
//
//	2831823829
//	283-182-3829, 283.182.3829 (the same separator twice)
//	(283) 182-3829, (283)-182-3829, (283)182-3829, (283) 182 3829
//
// optionally after the country code "+1" (followed by nothing, a space, a
// hyphen or a dot) or "1" (followed by one of those or by '('): so also
// "+1 283 182 3829", "+1-283-182-3829", "+12831823829",
// "1 (283) 182-3829" and "1-800-555-0199". Three groups separated by
// spaces alone ("283 182 3829") match only after such a prefix.
//
// Phone, international: '+', a first digit 2 to 9, and 8 to 15 digits in
// all (the E.164 maximum): either 10 to 15 digits in one group
// ("+442079460958"), or a first group of at most 4 digits followed by
// groups each after one space or hyphen ("+44 20 7946 0958",
// "+33 1 23 45 67 89", "+7 495 123-45-67"), with at most one group of 1 to
// 4 digits in parentheses right after the first ("+44 (0)20 7946 0958"),
// or groups of 2 to 4 digits all after dots ("+44.20.7946.0958"). The
// match is the longest such number that ends at a boundary, so a number
// that follows after a space can be taken in while the total stays within
// 15 digits.
//
// Not phones: longer digit runs (a 16-digit card number, an 11-digit
// number without '+'), dates (2021-03-04, 03/04/2021), prices ($1,283.18),
// version numbers (1.2.3, 10.0.19041), years and other short numbers,
// Unix times (ten digits starting with 1), "(123) 456-7890" (no such area
// code) and floats with a sign ("+3.14159265").
//
// IPv4: four decimal numbers 0 to 255 separated by dots, without leading
// zeros ("0" alone is fine): "192.168.0.1" and "10.0.0.1" in
// "10.0.0.1:8080" or "10.0.0.0/8". A four-part version number such as
// "1.2.3.4" has the same syntax and is masked: the syntax wins. Not IPv4:
// "999.1.1.1", "01.2.3.4", "1.2.3", and any four parts of a longer dotted
// run such as "1.2.3.4.5".
//
// IPv6: eight groups of 1 to 4 hex digits separated by colons, or fewer
// with one "::" standing for the missing groups, the last two groups
// optionally written as an IPv4 address: "2001:db8::1", "::1", "fe80::",
// "fe80::1ff:fe23:4567:890a", "::ffff:192.0.2.128". The candidate is the
// whole run of letters, digits, '_' and colons around it (less a prefix
// such as "ip:" or "Host:" that ends in a letter other than a hex digit),
// so no address is cut out of a longer such run ("1:2:3:4:5:6:7:8:9",
// "xfe80::1"). To leave text that only shares the syntax alone, an
// address must contain a decimal digit (not "::", "A::B", "dead::beef"),
// and eight groups of exactly two hex digits are taken for an EUI-64
// identifier, not an address. Times ("12:30", "12:30:45") and MAC
// addresses ("aa:bb:cc:dd:ee:ff": six groups) are not IPv6 syntax in the
// first place. An address followed by a zone ("fe80::1%eth0") or a port
// after brackets ("[2001:db8::1]:443") is masked without them.
//
// Private, loopback and documentation addresses are masked like any other.
//
// # Boundaries
//
// A match is not part of a bigger token. It may not be glued on either
// side to a letter, digit or '_' (also non-ASCII letters, digits and
// marks, except in scripts written without spaces: "電話2831823829" is
// masked), nor be followed by '@' or '+', nor start with a letter right
// after '@' (so "user@10.0.0.1" masks the address, "a@b.com@c.com"
// nothing). It may not continue through a connector into more of the
// same: '.' or '-' between two letters or digits ("1.2.3.4.5",
// "283-182-3829-1", "v1.2.3.4", "1.2.3.4-beta"), "--" before or after a
// letter or digit, and "::" before or after one.
//
// # Idempotence
//
// Masking a masked text changes nothing. A token never matches, and its
// first and last bytes are punctuation that no match contains and no
// boundary rule looks at, so a token cannot join with the text around it
// into a new match; a match next to an existing token ("|||PHONE_NUMBER|||"
// followed by "2831823829") is masked once and is then a token itself.
// The boundary rules read the same bytes from both sides of a boundary,
// so a match refused next to another one is refused for the same reason
// once the other is a token. NewMasker checks that custom tokens keep
// these properties.
package pii
