// Chromium comes from @sparticuz/chromium (shipped inside its npm package); puppeteer must not download
// a browser at install time: the machines this installs on reach only the npm registry.
module.exports = { skipDownload: true };
