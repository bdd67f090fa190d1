// A UI template as an MCP Apps view writes it (what the ext-apps SDK's App class does, by hand): it asks the host to
// initialize, says it is initialized, draws the tool's input and result when the host sends them, and reports its size.
export const VIEW_TEMPLATE = `<!doctype html>
<html><head><meta charset="utf-8"><style>body{font:14px system-ui;margin:8px} .big{height:240px}</style></head>
<body><h2 id="title">Forecast</h2><p id="input">no input yet</p><p id="out">waiting for the result</p><div class="big"></div>
<script>
  var pending = {};
  function request(method, params) {
    var id = Math.random().toString(36).slice(2);
    return new Promise(function (resolve, reject) {
      pending[id] = { resolve: resolve, reject: reject };
      window.parent.postMessage({ jsonrpc: '2.0', id: id, method: method, params: params }, '*');
    });
  }
  window.addEventListener('message', function (event) {
    var m = event.data;
    if (!m || m.jsonrpc !== '2.0') return;
    if (m.id !== undefined && pending[m.id]) {
      var p = pending[m.id]; delete pending[m.id];
      return m.error ? p.reject(m.error) : p.resolve(m.result);
    }
    if (m.method === 'ui/notifications/tool-input') document.getElementById('input').textContent = 'city: ' + m.params.arguments.city;
    if (m.method === 'ui/notifications/tool-result') {
      var s = m.params.structuredContent;
      document.getElementById('out').textContent = s ? s.city + ': ' + s.temp + ' degrees' : m.params.content[0].text;
    }
  });
  request('ui/initialize', { appInfo: { name: 'forecast', version: '1' }, appCapabilities: {}, protocolVersion: '2026-01-26' }).then(function (result) {
    document.getElementById('title').textContent = 'Forecast in ' + result.hostInfo.name + ' (' + result.hostContext.displayMode + ')';
    window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} }, '*');
    window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: { width: 300, height: document.body.scrollHeight + 16 } }, '*');
    // What a sandboxed view cannot reach: the console's storage, cookies, and the API.
    var probes = [];
    try { probes.push('storage:' + typeof window.parent.sessionStorage.length) } catch (e) { probes.push('storage:blocked') }
    try { probes.push('cookie:' + document.cookie) } catch (e) { probes.push('cookie:blocked') }
    fetch('/api/auth/me').then(function () { probes.push('fetch:allowed') }, function () { probes.push('fetch:blocked') }).then(function () {
      document.getElementById('title').setAttribute('data-probes', probes.join(' '));
    });
  });
</script></body></html>`
