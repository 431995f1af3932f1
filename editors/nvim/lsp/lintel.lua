-- Default configuration of the lintel language server for `vim.lsp.config`/`vim.lsp.enable` (Neovim >= 0.11).
-- `require("lintel").setup()` layers the user's options on top of this; `vim.lsp.enable("lintel")` alone also works.

-- The built-in languages come from lintel's registry (lua/lintel/languages.lua, generated).
local languages = require('lintel.languages')
-- lintel.toml, where a workspace declares languages of its own, makes a folder a root as well.
local project_markers = vim.list_extend(vim.deepcopy(languages.markers), { 'lintel.toml' })

---@type vim.lsp.Config
return {
  cmd = require('lintel').default_cmd(),
  -- Files of the languages declared in lintel.toml have no file type here: lintel.declared attaches them.
  filetypes = vim.deepcopy(languages.filetypes),
  -- Before 0.11.3 a flat list already meant "the nearest of these"; since then nesting says it.
  root_markers = vim.fn.has('nvim-0.11.3') == 1 and { project_markers, '.git' }
    or vim.list_extend(vim.deepcopy(project_markers), { '.git' }),
  -- The server asks for lenses to be fetched again after a test run; a lens's run shows its result (lintel.tests).
  capabilities = { workspace = { codeLens = { refreshSupport = true } } },
  handlers = require('lintel.tests').handlers,
  commands = require('lintel.tests').client_commands,
  on_init = function(client)
    require('lintel.declared').on_init(client)
  end,
}
