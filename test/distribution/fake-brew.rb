# The part of Homebrew's formula DSL that skillhub.rb uses, so a test can load the generated
# formula with a real Ruby, see which url/sha256 Homebrew would pick on one OS and CPU, then run
# its install and test blocks against an unpacked archive.
#   ruby fake-brew.rb FORMULA macos|linux arm|intel                  prints {"url":…,"sha256":…}
#   ruby fake-brew.rb FORMULA macos|linux arm|intel STAGE PREFIX     installs from STAGE, runs `test do`
require "fileutils"
require "json"
require "open3"

FORMULA, OS, ARCH, STAGE, PREFIX = ARGV

class BinDir
  def initialize(path) = (@path = path)
  def to_s = @path

  def install(name)
    FileUtils.mkdir_p(@path)
    FileUtils.cp(name, File.join(@path, File.basename(name)), preserve: true)
  end

  def install_symlink(links)
    links.each { |target, link| File.symlink(target, File.join(@path, link)) }
  end
end

class Formula
  class << self
    def spec = (@spec ||= { urls: [], sha256s: [] })
    def desc(text) = (spec[:desc] = text)
    def homepage(text) = (spec[:homepage] = text)
    def license(spdx) = (spec[:license] = spdx)
    def version(text = nil) = text ? (spec[:version] = text) : spec[:version]
    def url(text) = spec[:urls] << text
    def sha256(text) = spec[:sha256s] << text
    def on_macos = (yield if OS == "macos")
    def on_linux = (yield if OS == "linux")
    def on_arm = (yield if ARCH == "arm")
    def on_intel = (yield if ARCH == "intel")
    def test(&block) = (spec[:test] = block)
  end

  def version = self.class.version
  def bin = BinDir.new(File.join(PREFIX, "bin"))

  def shell_output(command, status = 0)
    out, st = Open3.capture2(command)
    raise "#{command} exited #{st.exitstatus}, not #{status}" unless st.exitstatus == status
    out
  end

  def assert_equal(expected, actual)
    raise "expected #{expected.inspect}, got #{actual.inspect}" unless expected == actual
  end
end

require File.expand_path(FORMULA)
spec = Skillhub.spec
abort "one url and one sha256 expected for #{OS}/#{ARCH}: #{spec.inspect}" unless spec[:urls].size == 1 && spec[:sha256s].size == 1
if STAGE
  Dir.chdir(STAGE) { Skillhub.new.install }
  Skillhub.new.instance_eval(&spec[:test])
end
puts JSON.generate({ url: spec[:urls][0], sha256: spec[:sha256s][0], version: spec[:version] })
