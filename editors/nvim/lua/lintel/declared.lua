-- Languages declared in lintel.toml (`[languages.<name>]`). Neovim has no file type lintel's client starts on for
-- them, so once the client is up the server is asked which there are (`lintel.detect`, its `languages`), and their
-- files in the client's workspace — loaded ones and those opened later — are attached to it by file suffix.
local M = {}

-- Client id -> the declared languages the server named, `{ name, extensions }`; an entry goes with its client.
local by_client = {}

---@param client vim.lsp.Client
---@return string[]
local function roots(client)
  local found = {}
  for _, folder in ipairs(client.workspace_folders or {}) do
    table.insert(found, vim.uri_to_fname(folder.uri))
  end
  if #found == 0 and client.root_dir then
    table.insert(found, client.root_dir)
  end
  return found
end

---@param path string
---@param root string
local function inside(path, root)
  root = vim.fs.normalize(root)
  return path == root or vim.startswith(path, root:gsub('/$', '') .. '/')
end

--- The declared language a file belongs to by its suffix (compared in lower case, as the server does).
---@param path string
---@param languages table[] `{ name, extensions }`
---@return string?
function M.language_of(path, languages)
  local name, best, length = path:lower(), nil, 0
  for _, language in ipairs(languages) do
    for _, suffix in ipairs(language.extensions or {}) do
      if #suffix > length and vim.endswith(name, suffix:lower()) then
        best, length = language.name, #suffix
      end
    end
  end
  return best
end

--- Attaches the client to a buffer holding a file of one of its declared languages inside its workspace.
---@param client vim.lsp.Client
---@param bufnr integer
---@return boolean attached
function M.attach(client, bufnr)
  local languages = by_client[client.id]
  if not languages or not vim.api.nvim_buf_is_loaded(bufnr) or vim.bo[bufnr].buftype ~= '' then
    return false
  end
  local path = vim.fs.normalize(vim.api.nvim_buf_get_name(bufnr))
  if path == '' or not M.language_of(path, languages) then
    return false
  end
  for _, root in ipairs(roots(client)) do
    if inside(path, root) then
      return vim.lsp.buf_attach_client(bufnr, client.id)
    end
  end
  return false
end

--- Takes the declared languages from a `lintel.detect` result and attaches the client to their buffers; from then
--- on files of those languages that are opened are attached as well.
---@param client vim.lsp.Client
---@param doc table the `lintel.detect` result
function M.learn(client, doc)
  local declared = vim.tbl_filter(function(language)
    return not language.builtin
  end, doc.languages or {})
  by_client[client.id] = declared
  if #declared == 0 then
    return
  end
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    M.attach(client, bufnr)
  end
  local group = vim.api.nvim_create_augroup('lintel.declared.' .. client.id, { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
    group = group,
    desc = 'lintel: attach files of the languages declared in lintel.toml',
    callback = function(event)
      if vim.lsp.get_client_by_id(client.id) == nil then
        by_client[client.id] = nil
        return true -- the client is gone: drop this autocmd
      end
      M.attach(client, event.buf)
    end,
  })
end

--- `on_init` of the lintel client: asks the server for the languages of its workspace.
---@param client vim.lsp.Client
function M.on_init(client)
  local root = roots(client)[1]
  if not root then
    return
  end
  local params = { command = 'lintel.detect', arguments = { { path = root } } }
  client:request('workspace/executeCommand', params, function(err, result)
    if err or type(result) ~= 'table' then
      vim.lsp.log.warn('lintel: lintel.detect failed, declared languages are not attached:', err)
      return
    end
    M.learn(client, result)
  end)
end

--- The names of the declared languages of the running lintel clients.
---@return string[]
function M.names()
  local names = {}
  for id, languages in pairs(by_client) do
    if vim.lsp.get_client_by_id(id) == nil then
      by_client[id] = nil
    else
      for _, language in ipairs(languages) do
        if not vim.list_contains(names, language.name) then
          table.insert(names, language.name)
        end
      end
    end
  end
  table.sort(names)
  return names
end

return M
