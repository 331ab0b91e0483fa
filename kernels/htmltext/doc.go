// Package htmltext turns web pages into text: it decodes a page to UTF-8
// and extracts either all of its visible text or only its main content.
//
// Decoding (Decode) takes the encoding from a byte order mark, then the
// charset of the HTTP Content-Type header, then a <meta> declaration in the
// first 1024 bytes, and otherwise guesses it (Detect) among UTF-8,
// Shift_JIS, EUC-JP, GB18030, windows-1251 and windows-1252 (which browsers
// use for Latin-1). The encodings are golang.org/x/text's, the declaration
// lookup golang.org/x/net/html/charset's.
//
// Extraction makes one pass of golang.org/x/net/html's tokenizer over the
// page and cuts its visible text into blocks at block-level elements
// (paragraphs, headings, list items, table cells, <br>...); white space
// runs collapse to one space except inside <pre>. Scripts, styles,
// <noscript>, forms' controls, SVG and elements hidden by the hidden
// attribute, aria-hidden="true" or an inline display:none are dropped.
//
//   - Plain mode keeps every block, one line each, in the spirit of
//     Resiliparse's plain-text extraction.
//   - Main mode keeps the main content, in the spirit of trafilatura: it
//     drops blocks inside <nav>, <header> (but an article's own), <footer>,
//     <aside>, <form>, or elements whose class, id or role names page
//     furniture (menu, breadcrumb, cookie, consent, share, related,
//     comments, sidebar, newsletter...); when an <article>, <main> or a
//     like-named element (role=main, itemprop=articleBody, class
//     entry-content...) holds at least a quarter of the text, only its
//     blocks; blocks whose text is mostly link text; cookie notices; and
//     fragments of fewer than four words that end no sentence and are
//     shorter than 20 characters. A heading stays only when the next block
//     kept is not a heading.
//
// ExtractColumn is the kernel over Arrow columns that the extract stage
// uses.
package htmltext
