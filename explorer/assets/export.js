// Saving a view as a file: a canvas as PNG, SVG text as .svg. Both go
// through a temporary object URL and a clicked link, as the downloads do.
"use strict";

function saveBlob(blob, name) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

function saveCanvas(canvas, name) { canvas.toBlob(blob => saveBlob(blob, name), "image/png"); }

function saveText(text, name, type) { saveBlob(new Blob([text], { type }), name); }
