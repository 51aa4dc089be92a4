// Every page: what used to be inline handlers (the Content-Security-Policy allows no inline script).
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  // The language menu in the top bar sends its form as soon as a language is picked.
  for (const select of document.querySelectorAll("select[data-submit-on-change]")) {
    select.addEventListener("change", () => select.form.submit());
  }
});
