// "Show join code" (issue 36): a phone that follows the game shows the page's address as a QR code, so the
// next phone joins in one scan. The codes are drawn by the box (GET /join.svg, /join-wifi.svg: segno), and the
// words are in the page; this only loads the pictures on first use and opens the dialog.
import { $ } from "./core.js";

export function initJoin() {
  const dialog = $("joindlg");
  $("joinbtn").addEventListener("click", () => {
    for (const img of dialog.querySelectorAll("img[data-src]")) {
      if (!img.getAttribute("src")) img.src = img.dataset.src;
    }
    dialog.showModal();
  });
}
