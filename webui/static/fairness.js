// "Test my dice" on the fairness page (issue 36): start a free roll (the box's own game, named by the page's
// data-game) that counts only the throws to come, then follow it (/fairness?game=ID&throws=N). Starting a
// game is a write: only a paired phone may (docs/api.md).
const form = document.getElementById('testform');
const msg = document.getElementById('testmsg');

function say(text) {
  msg.textContent = text;
  msg.hidden = false;
}

async function start(ev) {
  ev.preventDefault();
  const throws = Number(form.elements.throws.value);
  const session = await (await fetch('/api/session')).json();
  if (!session.paired) {
    say(form.dataset.unpaired);
    return;
  }
  const r = await fetch('/api/games', {
    method: 'POST',
    headers: {'Content-Type': 'application/json', 'X-Dicesight-CSRF': session.csrf},
    body: JSON.stringify({game: form.dataset.game, setup: {title: form.dataset.title}}),
  });
  const body = await r.json();
  if (!r.ok) {
    say(body.message);
    return;
  }
  location.href = `/fairness?game=${encodeURIComponent(body.game_id)}&throws=${encodeURIComponent(throws)}`;
}

if (form) form.addEventListener('submit', (ev) => { start(ev).catch((err) => say(String(err))); });
