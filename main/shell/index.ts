console.log('shell')
