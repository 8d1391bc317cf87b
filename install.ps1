# Install SkillHub on Windows, without administrator rights:
#   irm https://github.com/skillhub-dev/skillhub/releases/latest/download/install.ps1 | iex
#
# Environment (all optional):
#   VERSION                release to install, e.g. 0.2.0 (default: the latest)
#   INSTALL_DIR            where skillhub.exe goes (default: %LOCALAPPDATA%\Programs\skillhub)
#   SKILLHUB_DOWNLOAD_URL  folder holding the archives and SHA256SUMS (default: the GitHub release)
#
# Same steps as install.sh: download skillhub-<version>-windows-x64.zip and SHA256SUMS, refuse an
# archive whose checksum does not match, check that the binary runs, install skillhub.exe and
# skillhub-mcp.exe, add the folder to the user's PATH. Nothing is installed when a step fails.

# A script block keeps $ErrorActionPreference and variables out of the caller's session under iex,
# and `throw` (not `exit`) stops the install without closing the caller's window.
& {
  $ErrorActionPreference = 'Stop'
  $ProgressPreference = 'SilentlyContinue' # the progress bar makes Invoke-WebRequest many times slower
  # Windows PowerShell 5.1 on older .NET does not offer TLS 1.2, which GitHub requires.
  [Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12
  $Releases = 'https://github.com/skillhub-dev/skillhub/releases'
  $Platform = 'windows-x64'
  $Clients = 'claude-desktop, claude-code, cursor, vscode, windsurf, codex, gemini'

  # 32-bit PowerShell on 64-bit Windows reports x86 in PROCESSOR_ARCHITECTURE.
  $arch = if ($env:PROCESSOR_ARCHITEW6432) { $env:PROCESSOR_ARCHITEW6432 } else { $env:PROCESSOR_ARCHITECTURE }
  # Windows 11 on ARM runs x64 programs through its own emulation.
  if ($arch -ne 'AMD64' -and $arch -ne 'ARM64') {
    throw "skillhub install: unsupported CPU architecture: $arch. SkillHub has a build for 64-bit Windows (x64)."
  }

  $version = "$env:VERSION".TrimStart('v')
  if ($env:SKILLHUB_DOWNLOAD_URL) { $base = $env:SKILLHUB_DOWNLOAD_URL.TrimEnd('/') }
  elseif ($version) { $base = "$Releases/download/v$version" }
  else { $base = "$Releases/latest/download" }
  $installDir = if ($env:INSTALL_DIR) { $env:INSTALL_DIR } else { Join-Path $env:LOCALAPPDATA 'Programs\skillhub' }

  $tmp = Join-Path ([IO.Path]::GetTempPath()) ("skillhub-" + [guid]::NewGuid())
  New-Item -ItemType Directory -Path $tmp | Out-Null
  try {
    Invoke-WebRequest -UseBasicParsing -Uri "$base/SHA256SUMS" -OutFile "$tmp\SHA256SUMS"
    # The checksum list names every archive, so it also tells which version "latest" is.
    $archive = $null
    $expected = $null
    foreach ($line in Get-Content "$tmp\SHA256SUMS") {
      # A version holds no slash or backslash: the archive's name cannot lead out of the temporary folder.
      if ($line -match "^([0-9a-f]{64}) [ *](skillhub-([0-9A-Za-z.+-]+)-$Platform\.zip)$" -and (-not $version -or $Matches[3] -eq $version)) {
        $expected = $Matches[1]
        $archive = $Matches[2]
        $version = $Matches[3]
        break
      }
    }
    if (-not $archive) {
      throw "skillhub install: $base/SHA256SUMS lists no $Platform archive$(if ($version) { " for $version" }): is that release published?"
    }

    Write-Host "Downloading SkillHub $version for $Platform ..."
    $zip = Join-Path $tmp $archive
    Invoke-WebRequest -UseBasicParsing -Uri "$base/$archive" -OutFile $zip
    $actual = (Get-FileHash -Algorithm SHA256 -Path $zip).Hash.ToLowerInvariant()
    if ($actual -ne $expected) {
      throw "skillhub install: checksum mismatch for ${archive}: expected $expected, got $actual. The download is corrupt or was tampered with; nothing was installed."
    }

    $unpacked = Join-Path $tmp 'unpacked'
    Expand-Archive -Path $zip -DestinationPath $unpacked
    $exe = Join-Path $unpacked 'skillhub.exe'
    if (-not (Test-Path $exe)) { throw "skillhub install: $archive holds no skillhub.exe" }
    $got = (& $exe --version | Out-String).Trim()
    if ($LASTEXITCODE -ne 0) { throw "skillhub install: the downloaded binary does not run on this machine: $got" }

    New-Item -ItemType Directory -Force -Path $installDir | Out-Null
    foreach ($name in 'skillhub.exe', 'skillhub-mcp.exe') {
      $target = Join-Path $installDir $name
      # A running .exe cannot be overwritten on Windows, but it can be renamed out of the way.
      if (Test-Path $target) { Move-Item -Force $target "$target.old" }
      Copy-Item -Path $exe -Destination $target
      Remove-Item -Force "$target.old" -ErrorAction SilentlyContinue
    }
    Write-Host "Installed SkillHub $got to $installDir\skillhub.exe (also answers to skillhub-mcp)."

    # The user's Path as the registry holds it: %VARIABLES% unexpanded, written back as REG_EXPAND_SZ
    # ([Environment]::SetEnvironmentVariable would expand them and store a plain string).
    $envKey = [Microsoft.Win32.Registry]::CurrentUser.CreateSubKey('Environment')
    try {
      $userPath = [string]$envKey.GetValue('Path', '', [Microsoft.Win32.RegistryValueOptions]::DoNotExpandEnvironmentNames)
      $entries = $userPath -split ';' | ForEach-Object { [Environment]::ExpandEnvironmentVariables($_) }
      if (-not ($entries -contains $installDir)) {
        $newPath = if ($userPath) { "$userPath;$installDir" } else { $installDir }
        $envKey.SetValue('Path', $newPath, [Microsoft.Win32.RegistryValueKind]::ExpandString)
        # Setting and clearing a variable announces the change (WM_SETTINGCHANGE) to new terminals.
        [Environment]::SetEnvironmentVariable('SKILLHUB_INSTALL', '1', 'User')
        [Environment]::SetEnvironmentVariable('SKILLHUB_INSTALL', $null, 'User')
        Write-Host "Added $installDir to your PATH; open a new terminal to use it."
      }
    }
    finally {
      $envKey.Close()
    }
    Write-Host ''
    Write-Host 'Next: connect your MCP client. Print its configuration with'
    Write-Host "  skillhub print-config claude-desktop"
    Write-Host "(clients: $Clients)"
  }
  finally {
    Remove-Item -Recurse -Force $tmp -ErrorAction SilentlyContinue
  }
}
