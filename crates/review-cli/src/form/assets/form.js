
(function () {
  'use strict';
  var HEARTBEAT_MS = __HEARTBEAT__;
  var CLOSES_AT = Date.now() + __REMAINING__;
  var LOAD = __LOAD__;
  var form = document.getElementById('answers');
  var problem = document.getElementById('problem');
  var buttons = document.querySelectorAll('.bar button');
  var finished = false;
  function collect() {
    var issues = {};
    document.querySelectorAll('article.issue').forEach(function (el) {
      issues[el.dataset.thread] = {
        instruction: el.querySelector('textarea').value,
        autoResolve: el.querySelector('input[data-role="auto"]').checked,
        action: el.querySelector('select').value
      };
    });
    var groups = {};
    document.querySelectorAll('section.group').forEach(function (el) {
      groups[el.dataset.group] = { hide: el.querySelector('input[data-role="hide"]').checked };
    });
    return { issues: issues, groups: groups };
  }
  function post(path, body) {
    return fetch(path, {
      method: 'POST', cache: 'no-store', body: body,
      headers: { 'Content-Type': 'application/json' }
    });
  }
  function busy(on) {
    buttons.forEach(function (b) { b.disabled = on; });
  }
  function finish(message) {
    finished = true;
    clearInterval(timer);
    form.hidden = true;
    var done = document.getElementById('done');
    done.textContent = message;
    done.hidden = false;
    window.scrollTo(0, 0);
  }
  function send(path, body, message) {
    problem.textContent = '';
    busy(true);
    post(path, body).then(function (response) {
      if (response.ok) { finish(message); return; }
      return response.json().then(function (answer) {
        problem.textContent = answer.error || ('The tool refused: ' + response.status);
      });
    }).catch(function (error) {
      problem.textContent = 'The tool did not answer (' + error + '). Is the command still running?';
    }).then(function () { busy(false); });
  }
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    send('submit', JSON.stringify(collect()), 'Submitted \u2014 you can close this tab');
  });
  document.getElementById('cancel').addEventListener('click', function () {
    send('cancel', '', 'Cancelled \u2014 you can close this tab');
  });
  var timer = setInterval(function () {
    if (finished) { return; }
    post('alive', JSON.stringify(collect())).catch(function () {
      problem.textContent = 'The tool is no longer waiting for this form (its time ran out, or it ' +
        'was stopped).';
    });
  }, HEARTBEAT_MS);
  window.addEventListener('pagehide', function () {
    if (!finished) { navigator.sendBeacon('closed', String(LOAD)); }
  });
  var when = document.getElementById('closes');
  var at = new Date(CLOSES_AT);
  when.textContent = 'Open until ' + String(at.getHours()).padStart(2, '0') + ':' +
    String(at.getMinutes()).padStart(2, '0');
})();
