-- Arena gameplay script (checked by the repository guards).
local Arena = {}

function Arena.on_level_loaded(level)
	local gate = level:unit_by_name("gate_north")
	return gate ~= nil
end

return Arena
