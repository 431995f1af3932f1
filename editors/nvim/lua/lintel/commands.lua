-- :LintelRunTests, :LintelTypecheck, :LintelLint, :LintelDetect — each calls the server command of the same
-- name and shows its RunResult: issues and test failures in the quickfix list, a one-line summary as notification.
-- The checks act on the current buffer's file by default: the server runs the project above it (in a monorepo,
-- that file's project).
local M = {}

local commands = {
  LintelRunTests = 'lintel.runTests',
  LintelTypecheck = 'lintel.typecheck',
  LintelLint = 'lintel.lint',
  LintelDetect = 'lintel.detect',
}

local qf_types = { error = 'E', warning = 'W', info = 'I', hint = 'N' }

--- The language names commands take: the built-in ones and those the running servers said lintel.toml declares.
---@return string[]
function M.languages()
  return vim.list_extend(vim.deepcopy(require('lintel.languages').names), require('lintel.declared').names())
end

--- `:LintelRunTests python path=src timeout=60` -> `{language = "python", path = "src", timeout = 60}`.
---@param fargs string[]
---@return table
function M.parse_args(fargs)
  local args = {}
  for _, word in ipairs(fargs) do
    local key, value = word:match('^(%w+)=(.*)$')
    if key == 'timeout' then
      args.timeout = tonumber(value)
    elseif key == 'path' then
      args.path = vim.fn.fnamemodify(vim.fn.expand(value), ':p')
    elseif key then
      args[key] = value
    else
      args.language = word
    end
  end
  return args
end

---@param root string
---@param file? string
local function absolute(root, file)
  if not file or file == '' then
    return nil
  end
  return vim.fn.isabsolutepath(file) == 1 and file or vim.fs.joinpath(root, file)
end

local function first_line(text)
  return (tostring(text or ''):match('^[^\n]*'))
end

--- Quickfix items of a RunResult: test failures first, then the issues (less the test issues that repeat a
--- failure). `file` in a RunResult is relative to the workspace folder `root`.
---@param result table RunResult
---@param root string
---@return vim.quickfix.entry[]
function M.quickfix_items(result, root)
  local items, failed_at = {}, {}
  for _, failure in ipairs(result.failures or {}) do
    failed_at[(failure.file or '') .. ':' .. (failure.line or '')] = true
    table.insert(items, {
      filename = absolute(root, failure.file),
      lnum = failure.line or 0,
      type = 'E',
      text = ('FAILED %s: %s'):format(failure.name, first_line(failure.message)),
    })
  end
  for _, issue in ipairs(result.issues or {}) do
    if not (issue.kind == 'test' and failed_at[(issue.file or '') .. ':' .. (issue.line or '')]) then
      local tool = issue.rule and (issue.source .. ' ' .. issue.rule) or issue.source
      table.insert(items, {
        filename = absolute(root, issue.file),
        lnum = issue.line or 0,
        col = issue.column or 0,
        end_lnum = issue.endLine,
        end_col = issue.endColumn,
        type = qf_types[issue.severity] or 'E',
        text = ('%s: %s [%s]'):format(issue.severity or 'error', first_line(issue.message), tool),
      })
    end
  end
  return items
end

--- "lintel: python test failed — 1 failure, 2 issues (3.1 s)".
---@param result table RunResult
---@return string, integer
function M.summary(result)
  local counts = { ('%d issue%s'):format(#result.issues, #result.issues == 1 and '' or 's') }
  if result.failures then
    table.insert(counts, 1, ('%d failure%s'):format(#result.failures, #result.failures == 1 and '' or 's'))
  end
  local verdict = result.ok and 'ok' or (result.timedOut and 'timed out' or 'failed')
  if result.status == 'not_configured' then
    -- The project does not use the check's tool: nothing ran, nothing is wrong.
    return ('lintel: %s %s not configured — %s'):format(result.language, result.check, result.reason or ''),
      vim.log.levels.INFO
  end
  local text = ('lintel: %s %s %s — %s (%.1f s)'):format(
    result.language,
    result.check,
    verdict,
    table.concat(counts, ', '),
    (result.durationMs or 0) / 1000
  )
  if result.status == 'not_checked' and result.reason then
    text = text .. '\n' .. result.reason
  end
  return text, result.ok and vim.log.levels.INFO or vim.log.levels.WARN
end

--- Names of the binaries a check needs that were not found.
---@param spec table a check of `lintel.detect`'s result: `{tool, argv, binaries = {{name, found, path, via}}}`
---@return string[]
function M.missing_binaries(spec)
  local missing = {}
  for _, binary in ipairs(spec.binaries or {}) do
    if not binary.found then
      table.insert(missing, binary.name)
    end
  end
  return missing
end

--- One line per detected project and check: the tool and whether its binaries were found.
---@param doc table the `lintel.detect` result
---@return string
function M.describe_detection(doc)
  if #doc.projects == 0 then
    return ('lintel: no supported project in %s'):format(doc.root)
  end
  local lines = {}
  for _, project in ipairs(doc.projects) do
    table.insert(lines, ('lintel: %s project at %s'):format(project.language, project.root))
    for _, check in ipairs(vim.fn.sort(vim.tbl_keys(project.checks))) do
      local spec = project.checks[check]
      local missing = M.missing_binaries(spec)
      local state = #missing == 0 and 'found' or ('missing: ' .. table.concat(missing, ', '))
      if spec.notConfigured then
        state = 'not configured: ' .. spec.notConfigured
      end
      table.insert(lines, ('  %-9s %s (%s)'):format(check, spec.tool, state))
    end
  end
  return table.concat(lines, '\n')
end

--- Whether `file` is inside one of the client's workspace folders (compared as real paths, as the server does).
---@param client vim.lsp.Client
---@param file string
---@return boolean
local function in_workspace(client, file)
  local roots = vim.tbl_map(function(folder)
    return vim.uri_to_fname(folder.uri)
  end, client.workspace_folders or {})
  if #roots == 0 and client.root_dir then
    roots = { client.root_dir }
  end
  local real = vim.uv.fs_realpath(file) or file
  return vim.iter(roots):any(function(root)
    return vim.fs.relpath(vim.uv.fs_realpath(root) or root, real) ~= nil
  end)
end

--- The file of buffer `bufnr`, the `path` a check acts on when none is given; nil for a scratch, unnamed or special
--- buffer, a file not on disk yet, or one outside the client's workspace (the server would refuse it).
---@param bufnr integer
---@param client? vim.lsp.Client
---@return string?
function M.buffer_path(bufnr, client)
  local file = vim.api.nvim_buf_get_name(bufnr)
  if vim.bo[bufnr].buftype ~= '' or file == '' or not vim.uv.fs_stat(file) then
    return nil
  end
  if client and not in_workspace(client, file) then
    return nil
  end
  return file
end

--- The lintel client of the current buffer, else any running one.
---@return vim.lsp.Client?
function M.client()
  return vim.lsp.get_clients({ name = 'lintel', bufnr = 0 })[1] or vim.lsp.get_clients({ name = 'lintel' })[1]
end

--- Runs a lintel server command; `on_result(result, client)` gets the decoded result. Either way the
--- `User LintelCommandDone` event fires afterwards with `data = {command, result?, error?}`.
---@param command string e.g. "lintel.runTests"
---@param args? table `{language?, path?, timeout?}`
---@param on_result? fun(result: any, client: vim.lsp.Client)
function M.execute(command, args, on_result)
  local function done(result, message)
    if message then
      vim.notify(('lintel: %s: %s'):format(command, message), vim.log.levels.ERROR)
    end
    vim.api.nvim_exec_autocmds('User', {
      pattern = 'LintelCommandDone',
      data = { command = command, result = result, error = message },
    })
  end
  local client = M.client()
  if not client then
    return done(nil, 'the server is not running (open a file of a lintel workspace)')
  end
  local arguments = (args and next(args)) and { args } or nil
  -- A request rather than client:exec_cmd, which would call the client's own handler of lintel.runTests (a code
  -- lens's run, lintel.tests) instead of the server.
  local params = { command = command, arguments = arguments }
  client:request('workspace/executeCommand', params, function(err, result)
    if not err and on_result then
      on_result(result, client)
    end
    done(result, err and err.message)
  end)
end

---@param result table RunResult
---@param client vim.lsp.Client
local function show_run(result, client)
  local root = client.root_dir or vim.uri_to_fname(client.workspace_folders[1].uri)
  local items = M.quickfix_items(result, root)
  vim.fn.setqflist({}, ' ', { title = ('lintel: %s %s'):format(result.language, result.check), items = items })
  if #items > 0 and require('lintel').options.open_quickfix then
    vim.cmd('botright cwindow')
  end
  vim.notify(M.summary(result))
end

function M.create()
  for name, command in pairs(commands) do
    local show = command == 'lintel.detect' and function(doc, client)
      require('lintel.declared').learn(client, doc) -- lintel.toml may declare a language since the start
      vim.notify(M.describe_detection(doc))
    end or show_run
    vim.api.nvim_create_user_command(name, function(cmd)
      local args = M.parse_args(cmd.fargs)
      -- :LintelDetect shows the whole workspace; the checks run the current file's project unless told a path.
      if args.path == nil and command ~= 'lintel.detect' then
        args.path = M.buffer_path(0, M.client())
      end
      M.execute(command, args, show)
    end, {
      nargs = '*',
      desc = ('lintel: %s [language] [path=…] [timeout=…]'):format(command),
      complete = function(lead)
        return vim.tbl_filter(function(word)
          return vim.startswith(word, lead)
        end, vim.list_extend(M.languages(), { 'path=', 'timeout=' }))
      end,
    })
  end
end

return M
