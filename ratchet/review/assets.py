"""The page's inline CSS and JS (one file, no CDN: it must open from a file:// URL, offline).

The script does two things: hides unchanged rows on request, and, only when the page was
served (`ratchet review --serve`), posts a button's action with the per-run token read from
the page's own URL, so the token is never written into the page's bytes.
"""

from __future__ import annotations

CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "connect-src 'self'; img-src data:; form-action 'none'; base-uri 'none'"
)

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1f24;background:#fff}
h1{font-size:1.4em;margin:0 0 .3em}h2{font-size:1.15em;margin:0}h3{font-size:1em;margin:1em 0 .3em}
.simulated{font-weight:bold;color:#7a4b00;border:1px solid #e0b060;background:#fff7e6;padding:.4em .6em;margin:0 0 1em}
.unseen{color:#8a1c00;border:2px solid #d9534f;background:#fdecea;padding:.4em .8em;margin:0 0 1em}
.unseen p{font-weight:bold;margin:.2em 0}.unseen ul{margin:.2em 0}.unseen-warn{color:#8a1c00;font-weight:bold}
.unseen-note{color:#555}
.summary{color:#444;margin-bottom:1em}.item{border:1px solid #ccd;border-radius:6px;padding:1em;margin:1em 0}
.meta{color:#555;font-size:.9em}.note{color:#7a4b00}
table{border-collapse:collapse;width:100%;table-layout:fixed}td,th{border:1px solid #dde;padding:.3em;vertical-align:top;text-align:left}
th{background:#f3f4f8}.row-same td{background:#fff}.row-changed td{background:#fff8e1}
.row-added td.replay{background:#e6ffec}.row-removed td.golden{background:#ffebe9}
ul.args{list-style:none;margin:0;padding:0;font-family:ui-monospace,monospace;font-size:.9em}
.changed-arg{background:#ffd54f;font-weight:bold;outline:1px solid #c79100}
.call{font-family:ui-monospace,monospace;font-weight:bold}.effect{color:#666;font-weight:normal}
pre{white-space:pre-wrap;word-break:break-word;margin:0;font-size:.9em}
.diff .del{background:#ffebe9}.diff .ins{background:#e6ffec}.diff .eq{color:#555}
.finding-hard{color:#b00020;font-weight:bold}.actions button{margin-right:.5em;padding:.3em 1em}
.status{margin-left:1em;font-weight:bold}body.hide-same .row-same{display:none}
.thin{color:#8a1c00;font-weight:bold;margin:.3em 0}
.mutation{border:1px solid #ccd;border-radius:6px;padding:1em;margin:1em 0}.mutation-skill{margin:.6em 0}
.mutation-classes{width:auto}.mutation-blind,.mutation-unread{color:#8a1c00;font-weight:bold}
.mutation-none{color:#7a4b00}
.triggers{border:1px solid #ccd;border-radius:6px;padding:1em;margin:1em 0}.trigger-queries{width:auto}
.trigger-worse{color:#b00020;font-weight:bold}.trigger-unsettled,.trigger-errors,.triggers-file{color:#8a1c00}
"""

JS = """
(function(){
  var box=document.getElementById('hide-same');
  if(box){box.addEventListener('change',function(){document.body.classList.toggle('hide-same',box.checked);});}
  var token=new URLSearchParams(window.location.search).get('token');
  var served=document.body.getAttribute('data-served')==='1';
  document.querySelectorAll('.actions button').forEach(function(button){
    button.addEventListener('click',function(){
      var item=button.closest('.item');var status=item.querySelector('.status');
      if(!served||!token){status.textContent='open this page through `ratchet review --serve` to act on it';return;}
      var body={item:item.getAttribute('data-item'),action:button.getAttribute('data-action')};
      var pick=item.querySelector('select.decision');if(pick){body.decision=pick.value;}
      status.textContent='...';
      fetch('/api/decide',{method:'POST',headers:{'Content-Type':'application/json','X-Ratchet-Token':token},
        body:JSON.stringify(body)}).then(function(r){return r.json().then(function(j){return [r.ok,j];});})
        .then(function(res){status.textContent=res[1].message;item.setAttribute('data-state',res[0]?res[1].state:'error');})
        .catch(function(e){status.textContent='request failed: '+e;item.setAttribute('data-state','error');});
    });
  });
})();
"""
