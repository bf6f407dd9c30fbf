// Search on a book opened from the disk (file://). Sphinx's search finds pages in
// searchindex.js, which loads from the disk, but it fetches every result page to show an
// excerpt, and browsers refuse such requests to file:// URLs: each result then logs a failed
// fetch and shows no excerpt. From the disk, the search asks for no excerpts and says how to
// get them: serve the book over HTTP (`python -m http.server -d _build/html`, see
// "Run the book yourself").
if (window.location.protocol === "file:" && typeof DOCUMENTATION_OPTIONS !== "undefined") {
  DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;
  document.addEventListener("DOMContentLoaded", () => {
    const results = document.getElementById("search-results");
    if (results === null) return;
    const note = document.createElement("p");
    note.className = "search-offline-note";
    note.textContent =
      "Opened from the disk, the search lists the pages without excerpts. For excerpts, serve " +
      "the book: python -m http.server -d _build/html, then open http://localhost:8000.";
    results.parentNode.insertBefore(note, results);
  });
}
