// Paired phones (issue 11): a paired phone lists the phones that may change the game and unpairs one
// (a guest's phone after the game night, a phone someone lost) without unpairing everybody.
import { $, S, api, fill, h, render, t } from "./core.js";

function when(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

async function unpair(phone) {
  try {
    const r = await api("DELETE", `/api/pair/phones/${encodeURIComponent(phone.id)}`);
    if (r && r.paired === false) {
      S.session.paired = false;
      S.session.csrf = null;
      $("phonesdlg").close();
      render();
      return;
    }
  } catch { return; /* toast shown */ }
  await listPhones();
}

async function listPhones() {
  let data;
  try { data = await api("GET", "/api/pair/phones"); } catch { return; }
  const phones = (data && data.phones) || [];
  fill($("phonelist"), phones.length ? phones.map((p) => h("li", { class: "row phone", data: { id: p.id } },
    h("span", { class: "grow" },
      h("b", { text: p.label || "?" }),
      p.this ? h("em", { text: ` (${t("phone_this")})` }) : null,
      h("br"),
      h("small", { class: "muted", text: [p.address, when(p.paired_at)].filter(Boolean).join(" · ") })),
    h("button", { class: "ghost small", type: "button", text: t("phone_unpair"), onclick: () => unpair(p) })))
    : [h("li", { class: "muted", text: t("phones_none") })]);
}

export function initPhones() {
  $("phones").addEventListener("click", async () => {
    await listPhones();
    $("phonesdlg").showModal();
  });
}
